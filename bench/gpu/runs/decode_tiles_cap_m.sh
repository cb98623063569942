#!/bin/bash
# Device run: the rest of decode_tiles_cap.sh, one harness run per M class
# (M = 16 apart from M = 2 to 12: the harness compiles one divisibility class
# a run), into the same data/h200-triton-splitk-bm16-cap.
set -u
export PYTHONUNBUFFERED=1
D=$OUT/decode-tiles-cap
mkdir -p $D
. bench/gpu/runs/decode_tiles_run.sh
run_typed m 90 float16 4x8192x3584,8x3584x14336,2x5120x3072,12x5120x27648
run_typed m16 45 float16 16x8192x3072
run_typed bf16-m 55 bfloat16 2x5120x27648,6x7168x5120
run_typed bf16-m16 45 bfloat16 16x3584x14336
run_typed fp8-m 70 float8_e4m3 4x27648x5120,8x3072x8192,2x8192x3584
run_typed fp8-m16 45 float8_e4m3 16x5120x13824
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi-m.txt
tar czf $OUT/res.tgz -C $OUT decode-tiles-cap
