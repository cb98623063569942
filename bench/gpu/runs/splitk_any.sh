#!/bin/bash
# Device run: split factors besides the powers of two (data/h200-triton-splitk-any).
# 16 fresh fp16 shapes, every one held out (nothing fitted on them), chosen
# before measuring: eleven where the frozen model predicts that a split of 3
# or 5 fills the SMs better than 1, 2, 4, 8 or 16 (1.04-1.27x), five controls
# where it predicts no gain. Workspace kernel, 72 tiles x split
# {1, 2, 3, 4, 5, 6, 8, 12, 16}, timed as CUDA graphs, beside cuBLAS.
set -u
export PYTHONUNBUFFERED=1
mkdir -p $OUT/splitk-any
timeout 570 python3 bench/gpu/triton_splitk_harness.py --variants workspace --all-held-out \
  --splits 1,2,3,4,5,6,8,12,16 --deadline-s 530 --out $OUT/splitk-any \
  --shapes 128x5120x13824,256x5120x13824,512x5120x13824,192x3584x18944,384x3584x18944,192x3072x8192,384x3072x8192,256x2560x10240,512x2560x10240,768x1024x16384,1024x768x12288,64x5120x13824,96x4096x14336,128x4096x11008,256x4096x4096,512x1024x8192 \
  > $OUT/splitk-any/log.txt 2>&1
echo "rc $?"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/splitk-any/smi.txt
grep "^# [0-9]\|^# elapsed\|FAIL\|Error\|rror" $OUT/splitk-any/log.txt | cut -c1-230
tar czf $OUT/res.tgz -C $OUT splitk-any
