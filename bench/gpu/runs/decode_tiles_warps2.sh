#!/bin/bash
# Device run, the second fresh judge of mma_copy_warp_power (after
# decode_tiles_warps.sh, whose last shape in two classes its deadlines cut):
# decode steps never measured in their input type, from DeepSeek-V2-Lite,
# Gemma 2 9B, Phi-2 and Qwen1.5 14B projections; fp16, bf16 and fp8 (B
# K-major), M = 1 to 13; block_M 16, 32 and 64 with 4 and 8 warps, every
# split factor of the decode-tile sets, cuBLAS in the same run. Deadlines
# sized for an H100's compiles (about 30 s a class). Nothing is fitted on it.
set -u
export PYTHONUNBUFFERED=1
D=$OUT/decode-tiles-warps2
mkdir -p $D
. bench/gpu/runs/decode_tiles_run.sh
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $D/smi-before.txt
run_typed one 85 float16 1x10944x2048,1x7680x2560,1x10240x2560
run_typed m 65 float16 13x8192x3584,7x7680x2560
run_typed bf16-one 65 bfloat16 1x13696x5120,1x5120x13696
run_typed bf16-m 65 bfloat16 3x13696x5120,11x5120x13696
run_typed fp8-one 85 float8_e4m3 1x10240x2560,1x13696x5120,1x2560x10240
run_typed fp8-m 65 float8_e4m3 5x7680x2560,9x13696x5120
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi.txt
tar czf $OUT/res.tgz -C $OUT decode-tiles-warps2
