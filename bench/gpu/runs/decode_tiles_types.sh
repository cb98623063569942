#!/bin/bash
# Device run: block_M 16 and 32 beside 64 at decode sizes in bf16 (the
# shapes of data/h200-triton-splitk-bm16's one/ and m/, fp16 there) and in
# fp8 e4m3 with B K-major (fresh shapes), every split factor, cuBLAS in the
# same run (data/h200-triton-splitk-bm16-types); one harness run per (type,
# M class).
set -u
export PYTHONUNBUFFERED=1
D=$OUT/decode-tiles-types
mkdir -p $D
run() {  # name deadline dtype shapes
  timeout $(( $2 + 30 )) python3 bench/gpu/triton_splitk_harness.py --variants workspace --all-held-out \
    --block-ms 16,32,64 --dtype $3 --deadline-s $2 --out $D/$1 --shapes $4 > $D/$1.log 2>&1
  echo "$1 rc $?"
  grep "^# [0-9]\|^# elapsed\|deadline\|FAIL\|rror" $D/$1.log | cut -c1-220 | head -6
}
run bf16-one 110 bfloat16 1x10240x8192,1x15360x5120
run bf16-m 110 bfloat16 3x18944x3584,6x13824x5120
run fp8-one 120 float8_e4m3 1x14336x4096,1x10240x8192
run fp8-m 120 float8_e4m3 4x28672x8192,8x8192x28672
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi.txt
tar czf $OUT/res.tgz -C $OUT decode-tiles-types
