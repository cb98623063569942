#!/bin/bash
# Device run: fp8 (e4m3, B K-major) split-K decode steps, fresh and held out
# (data/h200-triton-splitk-fp8; shapes chosen before measuring, none in an
# earlier fp8 set; the family's constants frozen: nothing of the split model
# was fitted on fp8), then the per-SM copy probe (data/h200-profile-sm-copy).
set -u
export PYTHONUNBUFFERED=1
mkdir -p $OUT/splitk-fp8
H="python3 bench/gpu/triton_splitk_harness.py --variants workspace --all-held-out --dtype float8_e4m3"
timeout 100 $H --quick --out $OUT/quick > $OUT/splitk-fp8/quick.log 2>&1; echo "quick rc $?"
run() {  # name timeout args...
  local name=$1 t=$2; shift 2
  timeout $t $H --deadline-s $((t - 30)) --out $OUT/splitk-fp8/$name "$@" > $OUT/splitk-fp8/$name.log 2>&1; echo "$name rc $?"
}
run m 190 --shapes 2x4096x4096,4x4096x14336,8x5120x5120,6x14336x4096,12x4096x11008,3x2048x8192
run one 150 --shapes 1x4096x4096,1x5120x13824,1x8192x2048,1x2560x10240
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/splitk-fp8/smi.txt
bash bench/gpu/runs/sm_copy.sh
for f in quick m one; do grep "^# [0-9]\|^# elapsed\|^# compile\|^# load\|deadline\|FAIL\|Error\|rror" $OUT/splitk-fp8/$f.log | cut -c1-220 | head -8; done
tar czf $OUT/res.tgz -C $OUT splitk-fp8 sm-copy
