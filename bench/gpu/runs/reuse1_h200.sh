#!/bin/bash
# Device run: reuse1.sh on an H200 only (its 16-bit moves ran power-capped
# on the H100 of data/h100-triton-reuse1 and wait for an H200's times);
# on another GPU it runs nothing.
set -u
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $gpu"
case "$gpu" in
  *H200*) bash bench/gpu/runs/reuse1.sh ;;
  *) echo "not an H200: nothing run (data/h100-triton-reuse1 is the H100's)" ;;
esac
