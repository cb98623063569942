#!/bin/bash
# Device run: why do 16-row tiles 128 and 256 columns wide run slower
# against their prediction than 64-wide ones at decode sizes (3-16% in the
# medians of the decode sets' near-best kernels, the most in fp8;
# docs/model.md §6)? Three tiles of the same programs (128) and the same
# bytes of B a program, 64, 128 and 256 columns wide at split 1, 2 and 4, on
# 4x8192x8192, in fp16 (B N-major) and fp8 e4m3 (B K-major, block_K 128:
# full-line rows): checked, timed, PTX counted and profiled under Nsight
# Compute. Nothing is fitted on it.
set -u
export PYTHONUNBUFFERED=1
D=$OUT/wide-rows
mkdir -p $D
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $D/smi-before.txt
. bench/gpu/runs/probe_run.sh
probe fp16 float16 4x8192x8192 16x64x128_s5_w4_k1,16x128x128_s5_w4_k2,16x256x128_s4_w4_k4
probe fp8 float8_e4m3 4x8192x8192 16x64x128_s5_w4_k1,16x128x128_s5_w4_k2,16x256x128_s4_w4_k4
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi.txt
tar czf $OUT/res.tgz -C $OUT wide-rows
