#!/bin/bash
# Device run, after data/h200-study-decode-tiles: block_M 16 and 32 held out
# at decode sizes (fresh shapes, every split factor) and a guard set at M = 16
# to 512 where block_M 64 and 128 are expected to win (split 1, 2, 4), all
# in the harness's workspace variant with CUDA-graph timing, fp16, A and B
# row-major; one harness run per M class.
set -u
export PYTHONUNBUFFERED=1
D=$OUT/decode-tiles-fresh
mkdir -p $D
. bench/gpu/runs/decode_tiles_run.sh
run one 110 16,32,64 1,2,4,8,16 1x5120x13824,1x14336x3584,1x3584x14336
run m 120 16,32,64 1,2,4,8,16 5x28672x8192,10x5120x13824,7x14336x3584
run guard 230 16,32,64,128 1,2,4 16x4096x11008,48x5120x5120,96x14336x3584,128x6144x4096,256x13824x5120,512x8192x2048
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi.txt
tar czf $OUT/res.tgz -C $OUT decode-tiles-fresh
