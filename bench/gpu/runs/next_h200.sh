#!/bin/bash
# One device call: the first of the H200 queue (bench/gpu/README.md) when
# the call is given an H200; on an H100, the five misses' clocks
# (misses_clocks.sh), which say whether the pick and the best of each ran
# at different clocks there too.
set -u
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $gpu"
case "$gpu" in
  *H200*) bash bench/gpu/runs/harness_set.sh nbits2 ;;
  *) bash bench/gpu/runs/misses_clocks.sh ;;
esac
