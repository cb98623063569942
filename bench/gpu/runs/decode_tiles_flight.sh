#!/bin/bash
# Device run, after mma_flight_knee_kb and mma_flight_dram_share were frozen
# (docs/model.md §3, "Bytes in flight and DRAM"): fresh decode shapes (M = 1
# to 14, none measured before) with block_M 16, 32 and 64, every split factor
# of the decode-tile sets, cuBLAS in the same run, fp16, bf16 and fp8 e4m3
# (B K-major); one harness run per (type, M class). Nothing is fitted on it:
# the judge of the two constants.
set -u
export PYTHONUNBUFFERED=1
D=$OUT/decode-tiles-flight
mkdir -p $D
. bench/gpu/runs/decode_tiles_run.sh
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $D/smi-before.txt
run_typed one 70 float16 1x8960x1536,1x18176x4544,1x7168x20480
run_typed m 110 float16 4x10944x2048,6x5120x3072,10x4544x18176,3x20480x7168,12x8192x3072
run_typed bf16-one 50 bfloat16 1x2048x10944
run_typed bf16-m 80 bfloat16 5x9216x3072,9x7168x20480
run_typed fp8-one 60 float8_e4m3 1x22528x8192
run_typed fp8-m 95 float8_e4m3 7x8960x1536,3x22528x8192,14x10944x2048
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi.txt
tar czf $OUT/res.tgz -C $OUT decode-tiles-flight
