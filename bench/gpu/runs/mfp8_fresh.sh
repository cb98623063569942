#!/bin/bash
# Device run, fp8's launch_us and miss_latency_cycles frozen after their refit
# on data/h200-triton-mfp8: the fresh held-out fp8 cases of
# data/h200-triton-mfp8-fresh (MFP8_FRESH_HELD_OUT), chosen before measuring.
set -u
export PYTHONUNBUFFERED=1
timeout 330 python3 bench/gpu/triton_gemm_harness.py --deadline-s 300 --shapes mfp8-fresh --out $OUT/mfp8-fresh > $OUT/mfp8-fresh.log 2>&1; echo "mfp8-fresh rc $?"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/smi.txt
tail -16 $OUT/mfp8-fresh.log | cut -c1-160
tar czf $OUT/res.tgz -C $OUT mfp8-fresh mfp8-fresh.log smi.txt
