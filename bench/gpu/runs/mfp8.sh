#!/bin/bash
# Device run: calibration cases for fp8 (e4m3, B K-major) below M = 16
# (data/h200-triton-mfp8). Every case is calibration.
set -u
export PYTHONUNBUFFERED=1
timeout 230 python3 bench/gpu/triton_gemm_harness.py --deadline-s 200 --shapes mfp8 --out $OUT/mfp8 > $OUT/mfp8.log 2>&1; echo "mfp8 rc $?"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/smi.txt
tail -16 $OUT/mfp8.log | cut -c1-160
tar czf $OUT/res.tgz -C $OUT mfp8 mfp8.log smi.txt
