#!/bin/bash
# Device run, the fresh judge of the split GEMM's partial stores and DRAM
# share (partial_store_share, split_dram_share) with the reduction priced at
# what it adds behind its GEMM: tile-starved shapes never measured before in
# their input type (Llama 3 8B and 70B, Qwen2 7B, Qwen2 1.5B, Mistral 7B,
# Qwen1.5 14B projections), chosen before measuring where the family before
# and after the change pick differently on an H100, M = 1 to 128, fp16, bf16
# and fp8 (B K-major); block_M 16 to 64 (to 128 from M = 16), split 1 to 8
# with 3, 5 and 6, cuBLAS in the same run. PART a: fp16 and bf16; b: fp8.
# Nothing is fitted on it.
set -u
export PYTHONUNBUFFERED=1
D=$OUT/splitk-partial
mkdir -p $D
S=1,2,3,4,5,6,8
. bench/gpu/runs/decode_tiles_run.sh
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $D/smi-before.txt
if [[ ${PART:-a} == a ]]; then
  run_split_typed m 100 float16 16,32,64 2x8192x28672,2x1536x8960,24x1536x8960
  run_split_typed m16 130 float16 16,32,64,128 32x8192x28672,96x10240x8192,128x2048x8192,32x4096x11008
  run_split_typed bf16-one 60 bfloat16 16,32,64 1x3584x3584
  run_split_typed bf16-m 80 bfloat16 16,32,64 8x4096x11008,24x2048x8192
  run_split_typed bf16-m16 90 bfloat16 16,32,64,128 16x5120x13824,128x1536x8960
else
  run_split_typed fp8-one 90 float8_e4m3 16,32,64 1x3584x3584,1x8192x8192
  run_split_typed fp8-m 120 float8_e4m3 16,32,64 4x5120x5120,2x2048x8192,8x4096x4096
  run_split_typed fp8-m16 120 float8_e4m3 16,32,64,128 48x4096x11008,96x1536x8960
fi
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi-${PART:-a}.txt 2>/dev/null || true
tar czf $OUT/res.tgz -C $OUT splitk-partial
