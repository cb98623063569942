#!/bin/bash
# Device run: fresh decode steps of 2 to 12 tokens (data/h200-triton-mfew),
# the model frozen with A's repeated-row term one_row_a_extra / M below M = 16.
set -u
export PYTHONUNBUFFERED=1
timeout 400 python3 bench/gpu/triton_gemm_harness.py --shapes mfew --out $OUT/mfew > $OUT/mfew.log 2>&1; echo "mfew rc $?"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/smi.txt
tail -3 $OUT/mfew.log
tar czf $OUT/res.tgz -C $OUT mfew mfew.log smi.txt
