#!/bin/bash
# Device run: what the reduction adds after a split GEMM inside one CUDA
# graph, against the reduction timed alone (data/h200-triton-splitk-graph,
# calibration: every workspace kernel timed whole and as its GEMM alone,
# --gemm-alone), fp16, M = 1 to 1024; then the per-SM copy probe again
# (data/h200-profile-sm-copy, the loop without 64-bit division).
set -u
export PYTHONUNBUFFERED=1
mkdir -p $OUT/splitk-graph
H="python3 bench/gpu/triton_splitk_harness.py --variants workspace --all-calibration --gemm-alone"
run() {  # name timeout args...
  local name=$1 t=$2; shift 2
  timeout $t $H --deadline-s $((t - 30)) --out $OUT/splitk-graph/$name "$@" > $OUT/splitk-graph/$name.log 2>&1; echo "$name rc $?"
}
run one 120 --shapes 1x6144x6144,1x7168x4096
run m 150 --shapes 2x8192x2048,4x3072x8192,8x4096x6144,12x2048x4096
run big 150 --shapes 32x6144x6144,128x4096x8192,384x1536x12288,1024x1024x4096
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/splitk-graph/smi.txt
bash bench/gpu/runs/sm_copy.sh
for f in one m big; do grep "^# [0-9]\|^# elapsed\|deadline\|FAIL\|rror" $OUT/splitk-graph/$f.log | cut -c1-200 | head -7; done
tar czf $OUT/res.tgz -C $OUT splitk-graph sm-copy
