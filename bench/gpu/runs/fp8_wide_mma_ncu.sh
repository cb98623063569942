#!/bin/bash
# Device run: bench/gpu/decode_ncu_probe.py on fp8's 16-row tiles wider than
# 64 columns, which run over their predicted time (data/h100-triton-splitk-
# partial: 1x8192x8192 fp8, 16x256x64 split 4 predicted 33.9 us, measured
# 47.6, where 16x128x128 split 2 runs 39.4 and 16x64x128 split 2 38.3 with
# the same programs and bytes). The same kernels on the same shape in fp16
# for comparison. Each kernel checked, timed, its PTX's MMA and operand
# instructions counted, and profiled under Nsight Compute. Nothing is
# fitted on it.
set -u
export PYTHONUNBUFFERED=1
D=$OUT/fp8-wide-mma
mkdir -p $D
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $D/smi-before.txt
. bench/gpu/runs/probe_run.sh
K=16x256x64_s5_w4_k4,16x128x128_s5_w4_k2,16x64x128_s5_w4_k2,16x64x128_s5_w8_k2,16x128x64_s5_w4_k4,16x256x128_s4_w4_k4,16x64x128_s5_w4_k1
probe fp8 float8_e4m3 1x8192x8192 $K
probe fp16 float16 1x8192x8192 $K
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi.txt
tar czf $OUT/res.tgz -C $OUT fp8-wide-mma
