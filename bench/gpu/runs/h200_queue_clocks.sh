#!/bin/bash
# One device call of the H200 queue (bench/gpu/README.md): the five misses
# the gate leaves out, timed again with every row's SM clock and power
# (misses_clocks.sh, its harness deadline DEADLINE s, default 380), then
# the power probe on four grids (stage_depth_probe.py --power, about 110
# s). Given another GPU it runs nothing: the H100's copies are
# data/h100-triton-misses-clocks and data/h100-profile-power.
set -u
export PYTHONUNBUFFERED=1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $gpu"
case "$gpu" in
  *H200*)
    DEADLINE=${DEADLINE:-380} bash bench/gpu/runs/misses_clocks.sh
    timeout 150 python3 bench/gpu/stage_depth_probe.py --out $OUT/power --power --cases \
      555x14336x12288:float16:rr,1024x14336x4096:float16:rr,4096x4096x4096:float16:rr,384x4096x16384:float16:rr \
      > $OUT/power.log 2>&1; echo "power rc $?"
    tail -3 $OUT/power.log | cut -c1-200
    tar czf $OUT/power.tgz -C $OUT power power.log ;;
  *) echo "not an H200: the queue waits for one" ;;
esac
