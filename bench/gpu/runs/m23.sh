#!/bin/bash
# Device run: fresh M = 2 and 3 cases (data/h200-triton-m23) and fresh M = 2
# split-K decode steps (data/h200-triton-splitk-m2), the model frozen with
# A's repeated-row term extended to M = 2.
set -u
export PYTHONUNBUFFERED=1
timeout 300 python3 bench/gpu/triton_gemm_harness.py --shapes m23 --out $OUT/m23 > $OUT/m23.log 2>&1; echo "m23 rc $?"
timeout 200 python3 bench/gpu/triton_splitk_harness.py --variants workspace --all-held-out \
  --shapes 2x4096x4096,2x2048x8192,2x4096x11008,2x1024x16384 --out $OUT/sk2 > $OUT/sk2.log 2>&1; echo "sk2 rc $?"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/smi.txt
tail -4 $OUT/m23.log; grep "^# [0-9]" $OUT/sk2.log | cut -c1-160
tar czf $OUT/res.tgz -C $OUT m23 m23.log sk2 sk2.log smi.txt
