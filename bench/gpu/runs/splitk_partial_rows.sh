#!/bin/bash
# Device run, the fresh judge still to score: the candidate of
# data/h100-triton-splitk-partial (the reduction at its marginal cost, the
# split GEMM's partial stores and DRAM share) with a busy resource for the
# requests of rows shorter than a cache line in an mma step (8.5 cycles a
# request an SM, data/h100-profile-short-rows; docs/model.md §6). Shapes
# never measured before in their type, chosen before measuring where the
# shipped family and that candidate pick differently on an H100; fp16,
# bf16 and fp8 (B K-major), M = 1 to 128; block_M 16 to 64 (to 128 from
# M = 16), split 1 to 8 with 3, 5 and 6, cuBLAS in the same run. Nothing
# is fitted on it.
set -u
export PYTHONUNBUFFERED=1
D=$OUT/splitk-partial-rows
mkdir -p $D
S=1,2,3,4,5,6,8
. bench/gpu/runs/decode_tiles_run.sh
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $D/smi-before.txt
run_split_typed one 60 float16 16,32,64 1x4096x6144,1x2048x7168
run_split_typed m 60 float16 16,32,64 3x4096x6144,12x5120x13824
run_split_typed m16 100 float16 16,32,64,128 16x3072x8192,64x4096x11008,128x1536x8960
run_split_typed bf16-m 60 bfloat16 16,32,64 2x2560x10240,8x4096x6144
run_split_typed fp8-m 80 float8_e4m3 16,32,64 3x5120x5120,4x2048x7168,6x6144x4096
run_split_typed fp8-m16 80 float8_e4m3 16,32,64,128 32x4096x6144,128x2048x7168
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi.txt
tar czf $OUT/res.tgz -C $OUT splitk-partial-rows
