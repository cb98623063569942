#!/bin/bash
# Device run: block_M 16 and 32 beside 64 on decode shapes measured before
# with the 64-row family only (splitk-retime/one and splitk-g1/one, fp16
# M = 1; splitk-fp8, fp8 e4m3 B K-major), every split factor, cuBLAS in the
# same run (data/h200-triton-splitk-bm16-again); one harness run per (type,
# M class).
set -u
export PYTHONUNBUFFERED=1
D=$OUT/decode-tiles-again
mkdir -p $D
. bench/gpu/runs/decode_tiles_run.sh
run_typed one 190 float16 1x4096x11008,1x2048x8192,1x1024x16384,1x5120x5120,1x4096x14336,1x8192x8192,1x14336x4096,1x3584x18944,1x18944x3584,1x13824x5120
run_typed fp8-one 100 float8_e4m3 1x4096x4096,1x5120x13824,1x8192x2048,1x2560x10240
run_typed fp8-m 130 float8_e4m3 2x4096x4096,4x4096x14336,8x5120x5120,6x14336x4096,12x4096x11008,3x2048x8192
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi.txt
tar czf $OUT/res.tgz -C $OUT decode-tiles-again
