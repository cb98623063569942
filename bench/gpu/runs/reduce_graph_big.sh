#!/bin/bash
# Device run: the split GEMM alone and whole at M = 16 to 768 with large
# N x K, where the reduction priced behind its GEMM splits too often
# (data/h200-triton-splitk-graph/big2, calibration, --gemm-alone), fp16.
set -u
export PYTHONUNBUFFERED=1
mkdir -p $OUT/splitk-graph
timeout 300 python3 bench/gpu/triton_splitk_harness.py --variants workspace --all-calibration --gemm-alone \
  --deadline-s 270 --out $OUT/splitk-graph/big2 \
  --shapes 16x12288x8192,48x8192x8192,96x6144x14336,128x10240x8192,768x1024x12288 \
  > $OUT/splitk-graph/big2.log 2>&1; echo "big2 rc $?"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/splitk-graph/smi2.txt
grep "^# [0-9]\|^# elapsed\|deadline\|FAIL\|rror" $OUT/splitk-graph/big2.log | cut -c1-200 | head -9
tar czf $OUT/res.tgz -C $OUT splitk-graph
