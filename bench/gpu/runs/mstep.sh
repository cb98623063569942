#!/bin/bash
# Device run: calibration sets for the programs that walk K in step below
# M = 16 (in_step_a_ns): data/h200-triton-mstep (the 216-configuration grid,
# unsplit, 16-bit types and fp8) and data/h200-triton-splitk-step (the
# split-K grid, fp16 and bf16). Every shape is calibration.
set -u
export PYTHONUNBUFFERED=1
timeout 300 python3 bench/gpu/triton_gemm_harness.py --shapes mstep --out $OUT/mstep > $OUT/mstep.log 2>&1; echo "mstep rc $?"
H="python3 bench/gpu/triton_splitk_harness.py --variants workspace --all-calibration"
timeout 170 $H --deadline-s 150 --out $OUT/step-fp16 \
  --shapes 4x11008x4096,6x4096x11008,10x6144x4096,14x2048x8192,2x13824x5120,3x5120x13824,12x8192x4096 \
  > $OUT/step-fp16.log 2>&1; echo "step-fp16 rc $?"
timeout 80 $H --deadline-s 60 --dtype bfloat16 --out $OUT/step-bf16 --shapes 4x8192x4096,2x3072x8192 \
  > $OUT/step-bf16.log 2>&1; echo "step-bf16 rc $?"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/smi.txt
tail -3 $OUT/mstep.log
for f in step-fp16 step-bf16; do grep "^# [0-9]\|^# elapsed\|deadline\|FAIL\|Error" $OUT/$f.log | cut -c1-150; done
tar czf $OUT/res.tgz -C $OUT mstep mstep.log step-fp16 step-fp16.log step-bf16 step-bf16.log smi.txt
