#!/bin/bash
# Device run: block_M 16 and 32 beside 64 at decode sizes in bf16 (the
# shapes of data/h200-triton-splitk-bm16's one/ and m/, fp16 there) and in
# fp8 e4m3 with B K-major (fresh shapes), every split factor, cuBLAS in the
# same run (data/h200-triton-splitk-bm16-types); one harness run per (type,
# M class).
set -u
export PYTHONUNBUFFERED=1
D=$OUT/decode-tiles-types
mkdir -p $D
. bench/gpu/runs/decode_tiles_run.sh
run_typed bf16-one 110 bfloat16 1x10240x8192,1x15360x5120
run_typed bf16-m 110 bfloat16 3x18944x3584,6x13824x5120
run_typed fp8-one 120 float8_e4m3 1x14336x4096,1x10240x8192
run_typed fp8-m 120 float8_e4m3 4x28672x8192,8x8192x28672
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi.txt
tar czf $OUT/res.tgz -C $OUT decode-tiles-types
