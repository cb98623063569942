#!/bin/bash
# Device run, the fresh judge of mma_copy_warp_power (an mma tile's copy-rate
# cap grows with its warps; docs/model.md §3, "mma tiles"), measured after the
# constant was frozen: decode steps never measured in their input type, from
# Yi 34B, Falcon 7B, Gemma 2 9B, DeepSeek-V2-Lite, Llama 2 13B, Qwen2.5 32B,
# Llama 3.2 3B and Mistral Nemo projections; fp16, bf16 and fp8 (B K-major),
# M = 1 to 13; block_M 16, 32 and 64 with 4 and 8 warps, every split factor
# of the decode-tile sets, cuBLAS in the same run. Nothing is fitted on it.
set -u
export PYTHONUNBUFFERED=1
D=$OUT/decode-tiles-warps
mkdir -p $D
. bench/gpu/runs/decode_tiles_run.sh
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $D/smi-before.txt
run_typed one 70 float16 1x9216x7168,1x4672x4544,1x3584x4096,1x10944x2048
run_typed m 60 float16 6x15360x5120,9x5120x27648,13x8192x3584
run_typed bf16-one 60 bfloat16 1x20480x7168,1x4544x18176,1x5120x3072
run_typed bf16-m 50 bfloat16 5x14336x5120,10x4672x4544
run_typed fp8-one 60 float8_e4m3 1x14336x5120,1x5120x14336,1x4672x4544
run_typed fp8-m 50 float8_e4m3 7x5120x14336,12x14336x5120
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi.txt
tar czf $OUT/res.tgz -C $OUT decode-tiles-warps
