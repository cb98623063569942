#!/bin/bash
# One device call over the H200 queue (bench/gpu/README.md). Given an H200:
# the mma tiles' judge on the H200 (decode_tiles_mid.sh, about 170 s), then
# the row-stride sweep (about 100 s) and the power probe (about 110 s).
# Given an H100: the fresh decode steps of decode_tiles_mid_one.sh (M = 1
# to 12), the mma tiles' judge where only 16- to 64-row tiles compete.
set -u
export PYTHONUNBUFFERED=1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $gpu"
case "$gpu" in
  *H200*)
    bash bench/gpu/runs/decode_tiles_mid.sh
    timeout 150 python3 bench/gpu/parity_probe.py --sweep --out $OUT/sweep > $OUT/sweep.log 2>&1; echo "sweep rc $?"
    timeout 150 python3 bench/gpu/stage_depth_probe.py --out $OUT/power --power \
      --cases 555x14336x12288:float16:rr,1024x14336x4096:float16:rr,4096x4096x4096:float16:rr,384x4096x16384:float16:rr \
      > $OUT/power.log 2>&1; echo "power rc $?"
    tail -3 $OUT/sweep.log $OUT/power.log | cut -c1-200 ;;
  *) bash bench/gpu/runs/decode_tiles_mid_one.sh ;;
esac
