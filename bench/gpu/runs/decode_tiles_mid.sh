#!/bin/bash
# Device run, after an mma tile's stages in flight became stages - 1 and
# mma_rate_share was fitted (docs/model.md §3, "mma tiles"): fresh shapes
# where 16- and 32-row tiles (mma.sync) compete with 64- and 128-row ones
# (wgmma), M = 12 to 112, fp16, A and B row-major, in the harness's
# workspace variant with CUDA-graph timing; one harness run per
# divisibility class of M. Nothing is fitted on it: the judge of both.
set -u
export PYTHONUNBUFFERED=1
D=$OUT/decode-tiles-mid
mkdir -p $D
. bench/gpu/runs/decode_tiles_run.sh
run mid 240 16,32,64,128 1,2,4 48x4096x4096,64x5120x5120,96x5120x5120,80x8192x2048,112x4096x4096,64x3584x8192
run odd 200 16,32,64 1,2,4 24x4096x4096,40x11008x4096,24x14336x5120,40x6144x4096,12x8192x8192
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi.txt
tar czf $OUT/res.tgz -C $OUT decode-tiles-mid
