#!/bin/bash
# One device call for an H200 (about 460 s there): bench/gpu/l2_reuse_probe.py
# (B's reuse in L2 between program groups on the device the gate is measured
# on; about 40 s), then the first item of the H200 queue, kmajor_rows_fresh.sh
# (about 400 s). Given another GPU it runs nothing: the H100's copy of the
# probe is data/h100-profile-l2-reuse.
set -u
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $gpu"
case "$gpu" in
  *H200*)
    bash bench/gpu/runs/l2_reuse.sh
    mv $OUT/res.tgz $OUT/l2.tgz
    bash bench/gpu/runs/kmajor_rows_fresh.sh ;;
  *) echo "not an H200: the queue waits for one" ;;
esac
