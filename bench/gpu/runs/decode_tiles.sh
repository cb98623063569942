#!/bin/bash
# Device run: decode steps with block_M 16 and 32 (tl.dot takes mma, not
# wgmma, below 64) beside block_M 64, every split factor, cuBLAS in the same
# run (data/h200-study-decode-tiles). fp16, A and B row-major, workspace
# variant, CUDA-graph timing; one harness run per M class (1, neither, a
# multiple of 16).
set -u
export PYTHONUNBUFFERED=1
D=$OUT/decode-tiles
mkdir -p $D
run() {  # name deadline shapes
  timeout $(( $2 + 30 )) python3 bench/gpu/triton_splitk_harness.py --variants workspace --all-held-out \
    --block-ms 16,32,64 --deadline-s $2 --out $D/$1 --shapes $3 > $D/$1.log 2>&1
  echo "$1 rc $?"
  grep "^# [0-9]\|^# elapsed\|deadline\|FAIL\|rror" $D/$1.log | cut -c1-200 | head -6
}
run one 170 1x10240x8192,1x15360x5120
run m 200 3x18944x3584,6x13824x5120,8x8192x28672
run m16 150 16x28672x4096
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi.txt
tar czf $OUT/res.tgz -C $OUT decode-tiles
