#!/bin/bash
# Device run, the second fresh judge of the bytes-in-flight term (after
# decode_tiles_flight.sh): more decode shapes never measured, most in the
# classes where the first had one or two shapes (bf16 and fp8 at M = 1),
# from Gemma 2 2B, Phi-3 medium, StarCoder2 15B and Qwen2 0.5B projections;
# block_M 16, 32 and 64, every split factor of the decode-tile sets, cuBLAS
# in the same run. Nothing is fitted on it.
set -u
export PYTHONUNBUFFERED=1
D=$OUT/decode-tiles-flight2
mkdir -p $D
. bench/gpu/runs/decode_tiles_run.sh
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $D/smi-before.txt
run_typed one 60 float16 1x4864x896,1x35840x5120
run_typed m 70 float16 5x6144x24576,11x9216x2304
run_typed bf16-one 70 bfloat16 1x9216x2304,1x17920x5120,1x6144x24576
run_typed bf16-m 60 bfloat16 4x24576x6144,8x2304x9216
run_typed fp8-one 60 float8_e4m3 1x2304x9216,1x24576x6144,1x5120x17920
run_typed fp8-m 50 float8_e4m3 6x17920x5120,2x9216x2304
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi.txt
tar czf $OUT/res.tgz -C $OUT decode-tiles-flight2
