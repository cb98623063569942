#!/bin/bash
# Device run: fresh decode shapes (M = 1 to 16, none measured before in
# their type) with block_M 16, 32 and 64, every split factor of the
# decode-tile sets, cuBLAS in the same run: the judge of the copy-rate cap
# on mma tiles (data/h200-triton-splitk-bm16-cap); one harness run per
# (type, M class).
set -u
export PYTHONUNBUFFERED=1
D=$OUT/decode-tiles-cap
mkdir -p $D
. bench/gpu/runs/decode_tiles_run.sh
run_typed one 70 float16 1x7168x5120,1x27648x5120
run_typed m 110 float16 4x8192x3584,8x3584x14336,2x5120x3072,16x8192x3072,12x5120x27648
run_typed bf16-one 50 bfloat16 1x8192x3072
run_typed bf16-m 80 bfloat16 2x5120x27648,6x7168x5120,16x3584x14336
run_typed fp8-one 70 float8_e4m3 1x7168x5120,1x14336x3584
run_typed fp8-m 95 float8_e4m3 4x27648x5120,8x3072x8192,16x5120x13824,2x8192x3584
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi.txt
tar czf $OUT/res.tgz -C $OUT decode-tiles-cap
