#!/bin/bash
# Device run: split factors besides the powers of two in bf16 and fp8 e4m3
# (B K-major), fresh (data/h200-triton-splitk-any-types). Shapes chosen
# before measuring, none measured before in that type: where the frozen model
# predicts a gain from split 3, 5 or 6 over the best power of two, and a
# control or two. Workspace kernel, 72 tiles x split {1, 2, 3, 4, 5, 6, 8,
# 12, 16}, timed as CUDA graphs, beside cuBLAS.
set -u
export PYTHONUNBUFFERED=1
H="python3 bench/gpu/triton_splitk_harness.py --variants workspace --all-held-out --splits 1,2,3,4,5,6,8,12,16"
mkdir -p $OUT/any-types
timeout 270 $H --deadline-s 240 --dtype bfloat16 --out $OUT/any-types/bf16 \
  --shapes 192x768x12288,384x768x12288,384x1536x8960,768x1536x8960,768x3584x18944,384x1024x16384,192x1536x8960,768x3072x8192,128x8192x8192,512x4096x4096 \
  > $OUT/any-types/bf16.log 2>&1; echo "bf16 rc $?"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/any-types/smi-bf16.txt
timeout 220 $H --deadline-s 190 --dtype float8_e4m3 --out $OUT/any-types/fp8 \
  --shapes 192x3584x18944,384x768x12288,768x768x12288,128x2560x10240,64x5120x13824,192x1536x8960,128x4096x4096 \
  > $OUT/any-types/fp8.log 2>&1; echo "fp8 rc $?"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/any-types/smi-fp8.txt
# one archive: a device call returns a limited number of files
tar czf $OUT/res.tgz -C $OUT any-types && rm -rf $OUT/any-types
