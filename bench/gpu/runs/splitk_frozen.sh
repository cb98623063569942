#!/bin/bash
# Device run, the fresh judge after freezing the reduction at its marginal
# cost, the split GEMM's partial stores and DRAM share and an mma tile's rows
# shorter than a line (data/families/triton.json; docs/model.md §3,
# "Split-K"). Tile-starved decoder projections never measured before in
# their input type (Mistral Nemo 12B, Gemma 2 2B and 9B, Llama 3.2 1B,
# Llama 3.1 70B, Phi-3 medium, Qwen2.5 3B), M = 1 to 128, fp16, bf16 and
# fp8 (B K-major), chosen before measuring: thirteen where the family before
# and after the change pick differently on an H100, six where they agree.
# block_M 16 to 64 (to 128 from M = 16), split 1 to 8 with 3, 5 and 6, cuBLAS
# in the same run. Three calls, PART=one, two and three (the folders of two
# and three end in b where one has the class already). Nothing is fitted on
# it: data/h100-triton-splitk-frozen.
set -u
export PYTHONUNBUFFERED=1
D=$OUT/splitk-frozen
mkdir -p $D
S=1,2,3,4,5,6,8
. bench/gpu/runs/decode_tiles_run.sh
PART=${PART:-one}
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $D/smi-before-$PART.txt
case $PART in
  one)
    run_split_typed m 70 float16 16,32,64 4x8192x28672,8x9216x2304
    run_split_typed m16 90 float16 16,32,64,128 128x3584x14336,16x5120x14336
    run_split_typed bf16-m16 60 bfloat16 16,32,64,128 32x5120x14336,128x2048x8192  # its deadline left the second to two
    run_split_typed fp8-one 60 float8_e4m3 16,32,64 1x2048x11008,1x8192x28672
    run_split_typed fp8-m 40 float8_e4m3 16,32,64 4x2048x8192
    run_split_typed fp8-m16 40 float8_e4m3 16,32,64,128 128x2048x8192 ;;
  two)
    run_split_typed bf16-m16b 60 bfloat16 16,32,64,128 128x2048x8192,16x5120x17920
    run_split_typed one 60 float16 16,32,64 1x5120x17920
    run_split_typed fp8-mb 60 float8_e4m3 16,32,64 2x6144x3072,8x14336x3584
    run_split_typed bf16-one 40 bfloat16 16,32,64 1x14336x5120 ;;
  three)
    run_split_typed m16b 70 float16 16,32,64,128 64x5120x17920,64x14336x3584
    run_split_typed fp8-m16b 70 float8_e4m3 16,32,64,128 64x9216x2304,16x14336x3584 ;;
  *) echo "PART must be one, two or three" >&2; exit 2 ;;
esac
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi-$PART.txt 2>/dev/null || true
tar czf $OUT/res.tgz -C $OUT splitk-frozen
