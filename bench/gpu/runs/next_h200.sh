#!/bin/bash
# One device call over the H200 queue (bench/gpu/README.md). Given an H200:
# the bytes-in-flight term's judge on the H200 (decode_tiles_flight.sh,
# about 320 s; its results tar as res.tgz), then the row-stride sweep
# (about 100 s); the power probe (bench/gpu/README.md) waits for the next.
# Given an H100 it does nothing: the five misses' clocks were measured on
# one (data/h100-triton-misses-clocks), and the rest of the queue wants an
# H200.
set -u
export PYTHONUNBUFFERED=1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $gpu"
case "$gpu" in
  *H200*)
    bash bench/gpu/runs/decode_tiles_flight.sh
    timeout 150 python3 bench/gpu/parity_probe.py --sweep --out $OUT/sweep > $OUT/sweep.log 2>&1; echo "sweep rc $?"
    tail -3 $OUT/sweep.log | cut -c1-200 ;;
  *) echo "not an H200: the queue waits for one" ;;
esac
