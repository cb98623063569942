#!/bin/bash
# Device run: the stress test of the fused epilogue (the load-then-zero form
# against the exchange form), then, if the exchange form never fails, the
# fused variant measured again on splitk-v1's and splitk-m1a's calibration
# shapes and splitk-v2's held-out ones (SPLIT_K = 1 beside it).
set -u
H=bench/gpu/triton_splitk_harness.py
export PYTHONUNBUFFERED=1
timeout 150 python3 bench/gpu/fused_stress.py --out $OUT/stress > $OUT/stress.log 2>&1; echo "stress rc $?"
tail -3 $OUT/stress.log
if ! grep -q "^mode 3: 0 of" $OUT/stress.log; then tar czf $OUT/res.tgz -C $OUT stress stress.log; exit 1; fi
timeout 200 python3 $H --variants fused --deadline-s 180 --out $OUT/v1 > $OUT/v1.log 2>&1; echo "v1 rc $?"
timeout 80 python3 $H --variants fused --all-calibration --shapes 1x6144x4096,1x4096x4096,1x28672x4096 \
  --out $OUT/m1a > $OUT/m1a.log 2>&1; echo "m1a rc $?"
timeout 130 python3 $H --variants fused --all-held-out --deadline-s 110 \
  --shapes 16x8192x8192,32x10240x8192,64x8192x28672,128x8192x8192,16x6144x4096,48x4096x11008,96x5120x13824,256x4096x28672,768x768x12288,1024x512x16384,256x1024x16384,2048x2048x2048 \
  --out $OUT/v2 > $OUT/v2.log 2>&1; echo "v2 rc $?"
for f in v1 m1a v2; do grep "^# [0-9]" $OUT/$f.log | cut -c1-200; done
tar czf $OUT/res.tgz -C $OUT stress stress.log v1 v1.log m1a m1a.log v2 v2.log
