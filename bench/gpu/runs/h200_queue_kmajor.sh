#!/bin/bash
# One device call of the H200 queue (bench/gpu/README.md): the short-rows
# term's fresh judge on the device it was fitted on (kmajor_rows_fresh.sh,
# about 400 s). Given another GPU it runs nothing: the H100's copy is
# data/h100-triton-splitk-kmajor-fresh.
set -u
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $gpu"
case "$gpu" in
  *H200*) bash bench/gpu/runs/kmajor_rows_fresh.sh ;;
  *) echo "not an H200: the queue waits for one" ;;
esac
