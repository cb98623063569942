#!/bin/bash
# Device run: the split-K gate's held-out shapes (splitk-v1's four,
# splitk-v2's twelve, splitk-v3's five bf16; as data/h200-triton-splitk-retime
# gate-fp16 and gate-bf16) measured again with split factors besides the
# powers of two (data/h200-triton-splitk-any-gate): workspace kernel, 72
# tiles x split {1, 2, 3, 4, 5, 6, 8, 12, 16}, timed as CUDA graphs, beside cuBLAS.
set -u
export PYTHONUNBUFFERED=1
H="python3 bench/gpu/triton_splitk_harness.py --variants workspace --all-held-out --splits 1,2,3,4,5,6,8,12,16"
mkdir -p $OUT/any-gate
timeout 330 $H --deadline-s 300 --out $OUT/any-gate/fp16 \
  --shapes 1024x1024x8192,32x14336x4096,64x4096x14336,128x4096x4096,16x8192x8192,32x10240x8192,64x8192x28672,128x8192x8192,16x6144x4096,48x4096x11008,96x5120x13824,256x4096x28672,768x768x12288,1024x512x16384,256x1024x16384,2048x2048x2048 \
  > $OUT/any-gate/fp16.log 2>&1; echo "fp16 rc $?"
timeout 150 $H --deadline-s 120 --dtype bfloat16 --out $OUT/any-gate/bf16 \
  --shapes 16x4096x14336,64x4096x4096,128x14336x4096,512x512x16384,32x8192x28672 > $OUT/any-gate/bf16.log 2>&1; echo "bf16 rc $?"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/any-gate/smi.txt
# one archive: a device call returns a limited number of files
tar czf $OUT/res.tgz -C $OUT any-gate
for f in fp16 bf16; do grep "^# [0-9]\|^# elapsed\|deadline\|FAIL\|rror" $OUT/any-gate/$f.log | cut -c1-200; done
