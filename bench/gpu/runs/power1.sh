#!/bin/bash
# Device run on an H100: the fresh judge of the h100-sxm preset's power term
# (POWER1_HELD_OUT of bench/gpu/triton_gemm_harness.py), 15 shapes in four
# aligned 16-bit classes. The first picks written before measuring
# (`tileplan tile --device h100-sxm`, with the term | with --power-budget 0):
#   2048x11008x4096 fp16 rc   256x128x64_s4_w8 | 128x128x64_s3_w4
#   768x18944x3584  fp16 rc   256x128x64_s4_w8 | 128x128x64_s3_w4
#   512x28672x8192  fp16 rc   256x128x64_s4_w8 | 128x128x64_s5_w4
#   3072x6144x4096  fp16 rc   256x128x64_s4_w8 | 128x128x64_s3_w4
#   512x3584x18944  fp16 rc   128x128x64_s5_w4 | 64x256x64_s5_w4
#   1536x14336x4096 bf16 rc   256x128x64_s4_w8 | 128x128x64_s3_w4
#   1024x13824x5120 bf16 rc   256x128x64_s4_w8 | 128x128x64_s3_w4
#   6144x3072x3072  bf16 rc   256x128x64_s4_w8 | 128x128x64_s3_w4
#   1536x4096x14336 fp16 rr   128x256x64_s4_w8 | 128x128x64_s5_w4
#   768x8192x8192   fp16 rr   128x256x64_s4_w8 | 128x128x64_s5_w4
#   2048x3072x3072  fp16 rr   128x256x64_s4_w8 | 128x128x64_s5_w4
#   2048x5120x13824 bf16 rr   128x256x64_s4_w8 | 128x128x64_s5_w4
#   512x12288x4096  bf16 rr   128x256x64_s4_w8 | 128x128x64_s5_w4
#   4096x14336x4096 bf16 rc   256x128x64_s4_w8 (both: a control)
#   8192x4096x4096  fp16 rr   128x256x64_s4_w8 (both: a control)
# The hypothesis: the term's picks run faster than those without it on the
# thirteen, by the geomean of their regrets. Given another GPU than an H100
# it runs nothing (the term is the H100 preset's).
set -u
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $gpu"
case "$gpu" in
  *H100*) bash bench/gpu/runs/harness_set.sh power1 ;;
  *) echo "not an H100: nothing run" ;;
esac
