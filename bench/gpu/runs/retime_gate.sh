#!/bin/bash
# Device run: the split-K gate's launch-timed held-out shapes (splitk-v1's
# four, splitk-v2's twelve, splitk-v3's five bf16) timed again with CUDA
# graphs (data/h200-triton-splitk-retime/gate-fp16, gate-bf16).
set -u
export PYTHONUNBUFFERED=1
H="python3 bench/gpu/triton_splitk_harness.py --variants workspace --all-held-out"
timeout 200 $H --deadline-s 170 --out $OUT/gate-fp16 \
  --shapes 1024x1024x8192,32x14336x4096,64x4096x14336,128x4096x4096,16x8192x8192,32x10240x8192,64x8192x28672,128x8192x8192,16x6144x4096,48x4096x11008,96x5120x13824,256x4096x28672,768x768x12288,1024x512x16384,256x1024x16384,2048x2048x2048 \
  > $OUT/gate-fp16.log 2>&1; echo "fp16 rc $?"
timeout 100 $H --deadline-s 80 --dtype bfloat16 --out $OUT/gate-bf16 \
  --shapes 16x4096x14336,64x4096x4096,128x14336x4096,512x512x16384,32x8192x28672 > $OUT/gate-bf16.log 2>&1; echo "bf16 rc $?"
for f in gate-fp16 gate-bf16; do grep "^# [0-9]\|^# elapsed\|deadline" $OUT/$f.log | cut -c1-120; done
tar czf $OUT/res.tgz -C $OUT gate-fp16 gate-fp16.log gate-bf16 gate-bf16.log
