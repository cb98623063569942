#!/bin/bash
# Device run, in_step_a_ns, in_step_one_row_ns and one_row_a_extra frozen (the twelfth round, refitted):
# fresh held-out decode steps of 1 to 14 tokens, data/h200-triton-mstep-fresh2
# (the 216-configuration grid, unsplit) and data/h200-triton-splitk-step-fresh2
# (the split-K grid, fp16 and bf16, M = 2 to 14 and M = 1).
set -u
export PYTHONUNBUFFERED=1
timeout 330 python3 bench/gpu/triton_gemm_harness.py --deadline-s 300 --shapes mstep-fresh2 --out $OUT/mstep-fresh2 > $OUT/mstep-fresh2.log 2>&1; echo "mstep-fresh2 rc $?"
H="python3 bench/gpu/triton_splitk_harness.py --variants workspace --all-held-out"
run() {  # name timeout args...
  local name=$1 t=$2; shift 2
  timeout $t $H --deadline-s $((t - 25)) --out $OUT/$name "$@" > $OUT/$name.log 2>&1; echo "$name rc $?"
}
run m 150 --shapes 4x24576x3072,6x3072x24576,9x4096x4096,11x14336x4096,13x4608x3584,7x8192x8192
run m-bf16 80 --dtype bfloat16 --shapes 3x10240x8192,5x3072x24576
run one 90 --shapes 1x3584x3584,1x9216x3072,1x16384x3072
run one-bf16 70 --dtype bfloat16 --shapes 1x12288x3072
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/smi.txt
tail -2 $OUT/mstep-fresh2.log | cut -c1-200
for f in m m-bf16 one one-bf16; do grep "^# [0-9]\|^# elapsed\|deadline\|FAIL\|Error" $OUT/$f.log | cut -c1-150; done
tar czf $OUT/res.tgz -C $OUT mstep-fresh2 m m-bf16 one one-bf16 $(cd $OUT; ls *.log) smi.txt
