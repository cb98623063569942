#!/bin/bash
# Device run, in_step_a_ns and one_row_a_extra frozen (the twelfth round):
# fresh held-out decode steps of 1 to 14 tokens, data/h200-triton-mstep-fresh
# (the 216-configuration grid, unsplit) and data/h200-triton-splitk-step-fresh
# (the split-K grid, fp16 and bf16, M = 2 to 14 and M = 1).
set -u
export PYTHONUNBUFFERED=1
timeout 330 python3 bench/gpu/triton_gemm_harness.py --deadline-s 300 --shapes mstep-fresh --out $OUT/mstep-fresh > $OUT/mstep-fresh.log 2>&1; echo "mstep-fresh rc $?"
H="python3 bench/gpu/triton_splitk_harness.py --variants workspace --all-held-out"
run() {  # name timeout args...
  local name=$1 t=$2; shift 2
  timeout $t $H --deadline-s $((t - 25)) --out $OUT/$name "$@" > $OUT/$name.log 2>&1; echo "$name rc $?"
}
run m 150 --shapes 10x4096x11008,12x5120x5120,14x4096x14336,3x3584x18944,5x14336x4096,2x2560x10240
run m-bf16 80 --dtype bfloat16 --shapes 8x3584x18944,6x8192x4096
run one 90 --shapes 1x12288x4096,1x4096x8192,1x5632x2048
run one-bf16 70 --dtype bfloat16 --shapes 1x28672x8192
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/smi.txt
tail -2 $OUT/mstep-fresh.log | cut -c1-200
for f in m m-bf16 one one-bf16; do grep "^# [0-9]\|^# elapsed\|deadline\|FAIL\|Error" $OUT/$f.log | cut -c1-150; done
tar czf $OUT/res.tgz -C $OUT mstep-fresh m m-bf16 one one-bf16 $(cd $OUT; ls *.log) smi.txt
