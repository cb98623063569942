#!/bin/bash
# Device run: the fused split-K variant's smoke test, its calibration shapes
# (splitk-v1's fp16 grid and splitk-m1a's M = 1 shapes) and splitk-v2's
# twelve held-out shapes, measured with the fused variant beside the others.
set -u
H=bench/gpu/triton_splitk_harness.py
export PYTHONUNBUFFERED=1
python3 $H --quick --out $OUT/quick > $OUT/quick.log 2>&1
rc=$?; echo "quick rc $rc"; tail -5 $OUT/quick.log
if [ $rc -ne 0 ]; then grep -m5 -i "fail\|error" $OUT/quick.log; tar czf $OUT/res.tgz -C $OUT quick quick.log; exit 1; fi
timeout 300 python3 $H --variants workspace,fused --deadline-s 260 --out $OUT/v1 > $OUT/v1.log 2>&1; echo "v1 rc $?"
timeout 100 python3 $H --variants workspace,fused --all-calibration --shapes 1x6144x4096,1x4096x4096,1x28672x4096 \
  --out $OUT/m1a > $OUT/m1a.log 2>&1; echo "m1a rc $?"
timeout 130 python3 $H --variants fused --all-held-out --deadline-s 110 \
  --shapes 16x8192x8192,32x10240x8192,64x8192x28672,128x8192x8192,16x6144x4096,48x4096x11008,96x5120x13824,256x4096x28672,768x768x12288,1024x512x16384,256x1024x16384,2048x2048x2048 \
  --out $OUT/v2 > $OUT/v2.log 2>&1; echo "v2 rc $?"
for f in v1 m1a v2; do grep "^# [0-9]" $OUT/$f.log | cut -c1-250; done
tar czf $OUT/res.tgz -C $OUT quick quick.log v1 v1.log m1a m1a.log v2 v2.log
