#!/bin/bash
# Device run, the reduction's per-split term frozen: the fresh split-K set
# data/h200-triton-splitk-g1 (G1_HELD_OUT) and the small-M known-miss shapes
# again (data/h200-triton-splitk-retime), both timed with CUDA graphs.
set -u
export PYTHONUNBUFFERED=1
H="python3 bench/gpu/triton_splitk_harness.py --variants workspace --all-held-out"
run() {  # name timeout args...
  local name=$1 t=$2; shift 2
  timeout $t $H --out $OUT/$name "$@" > $OUT/$name.log 2>&1; echo "$name rc $?"
}
run g1-m 120 --shapes 4x14336x4096,4x4096x14336,2x6144x4096,8x5120x13824,12x4096x4096,6x3584x18944
run g1-one 90 --shapes 1x3584x18944,1x18944x3584,1x13824x5120
run g1-one-bf16 90 --dtype bfloat16 --shapes 1x4096x14336,1x5120x13824,1x2048x5632
run g1-big 100 --shapes 16x5120x13824,32x3584x18944,48x6144x4096,64x2048x8192
run rt-m 130 --shapes 2x4096x4096,2x2048x8192,2x4096x11008,2x1024x16384,8x4096x11008,8x2048x8192,8x5120x5120,8x1024x16384,8x4096x14336,8x8192x8192,8x6144x4096
run rt-one 90 --shapes 1x4096x11008,1x2048x8192,1x1024x16384,1x5120x5120,1x4096x14336,1x8192x8192,1x14336x4096
run rt-one-bf16 70 --dtype bfloat16 --shapes 1x4096x4096,1x3072x8192,1x2560x10240,1x8192x2048
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/smi.txt
for f in g1-m g1-one g1-one-bf16 g1-big rt-m rt-one rt-one-bf16; do grep "^# [0-9]\|^# elapsed\|FAIL\|Error" $OUT/$f.log | cut -c1-150; done
tar czf $OUT/res.tgz -C $OUT g1-m g1-one g1-one-bf16 g1-big rt-m rt-one rt-one-bf16 $(cd $OUT; ls *.log) smi.txt
