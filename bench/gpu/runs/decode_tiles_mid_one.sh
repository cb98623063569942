#!/bin/bash
# Device run, beside decode_tiles_mid.sh: fresh decode steps (M = 1, and
# M = 2 to 12) where 16- and 32-row tiles compete with 64-row ones, every
# split factor of the power-of-two grid, fp16, A and B row-major: the same
# judge of an mma tile's stages in flight and mma_rate_share at decode sizes.
# Nothing is fitted on it.
set -u
export PYTHONUNBUFFERED=1
D=$OUT/decode-tiles-mid
mkdir -p $D
. bench/gpu/runs/decode_tiles_run.sh
run one 120 16,32,64 1,2,4,8 1x8192x5120,1x4608x3072,1x6656x2560
run few 140 16,32,64 1,2,4,8 2x12288x4096,4x7168x3584,8x9216x4096,12x4608x6144,6x6656x10240
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi-one.txt
tar czf $OUT/res.tgz -C $OUT decode-tiles-mid
