#!/bin/bash
# Device run of a fresh held-out set of decode steps of 1 to 14 tokens for
# the programs in step (in_step_a_ns and one_row_a_extra frozen):
#   bash bench/gpu/runs/mstep_fresh.sh 1   data/h200-triton-mstep-fresh and -splitk-step-fresh
#   bash bench/gpu/runs/mstep_fresh.sh 2   data/h200-triton-mstep-fresh2 and -splitk-step-fresh2
#                                           (after the M = 1 refit, dropped, was frozen too)
# The 216-configuration grid, unsplit, and the split-K grid (fp16 and bf16,
# M = 2 to 14 and M = 1).
set -u
export PYTHONUNBUFFERED=1
case "${1:-}" in
  1) set_name=mstep-fresh
     m=10x4096x11008,12x5120x5120,14x4096x14336,3x3584x18944,5x14336x4096,2x2560x10240
     m_bf16=8x3584x18944,6x8192x4096
     one=1x12288x4096,1x4096x8192,1x5632x2048
     one_bf16=1x28672x8192 ;;
  2) set_name=mstep-fresh2
     m=4x24576x3072,6x3072x24576,9x4096x4096,11x14336x4096,13x4608x3584,7x8192x8192
     m_bf16=3x10240x8192,5x3072x24576
     one=1x3584x3584,1x9216x3072,1x16384x3072
     one_bf16=1x12288x3072 ;;
  *) echo "usage: mstep_fresh.sh 1|2" >&2; exit 2 ;;
esac
timeout 330 python3 bench/gpu/triton_gemm_harness.py --deadline-s 300 --shapes $set_name --out $OUT/$set_name > $OUT/$set_name.log 2>&1; echo "$set_name rc $?"
H="python3 bench/gpu/triton_splitk_harness.py --variants workspace --all-held-out"
run() {  # name timeout args...
  local name=$1 t=$2; shift 2
  timeout $t $H --deadline-s $((t - 25)) --out $OUT/$name "$@" > $OUT/$name.log 2>&1; echo "$name rc $?"
}
run m 150 --shapes $m
run m-bf16 80 --dtype bfloat16 --shapes $m_bf16
run one 90 --shapes $one
run one-bf16 70 --dtype bfloat16 --shapes $one_bf16
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/smi.txt
tail -2 $OUT/$set_name.log | cut -c1-200
for f in m m-bf16 one one-bf16; do grep "^# [0-9]\|^# elapsed\|deadline\|FAIL\|Error" $OUT/$f.log | cut -c1-150; done
tar czf $OUT/res.tgz -C $OUT $set_name m m-bf16 one one-bf16 $(cd $OUT; ls *.log) smi.txt
