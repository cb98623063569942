#!/bin/bash
# Device run: the small-M split-K known-miss shapes measured again with the
# harness's CUDA-graph timing (data/h200-triton-splitk-retime), the same
# shapes, kernels (workspace variant) and checks as when they came in.
set -u
export PYTHONUNBUFFERED=1
H=bench/gpu/triton_splitk_harness.py
timeout 120 python3 $H --quick --out $OUT/quick > $OUT/quick.log 2>&1; echo "quick rc $?"
timeout 240 python3 $H --variants workspace --all-held-out --out $OUT/m \
  --shapes 2x4096x4096,2x2048x8192,2x4096x11008,2x1024x16384,8x4096x11008,8x2048x8192,8x5120x5120,8x1024x16384,8x4096x14336,8x8192x8192,8x6144x4096 \
  > $OUT/m.log 2>&1; echo "m rc $?"
timeout 180 python3 $H --variants workspace --all-held-out --out $OUT/one \
  --shapes 1x4096x11008,1x2048x8192,1x1024x16384,1x5120x5120,1x4096x14336,1x8192x8192,1x14336x4096 \
  > $OUT/one.log 2>&1; echo "one rc $?"
timeout 150 python3 $H --variants workspace --all-held-out --dtype bfloat16 --out $OUT/one-bf16 \
  --shapes 1x4096x4096,1x3072x8192,1x2560x10240,1x8192x2048 > $OUT/one-bf16.log 2>&1; echo "one-bf16 rc $?"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/smi.txt
tail -2 $OUT/quick.log; for f in m one one-bf16; do grep "^# [0-9]" $OUT/$f.log | cut -c1-200; tail -3 $OUT/$f.log | cut -c1-200; done
tar czf $OUT/res.tgz -C $OUT quick.log m m.log one one.log one-bf16 one-bf16.log smi.txt
