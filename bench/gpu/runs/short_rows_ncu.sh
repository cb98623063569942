#!/bin/bash
# Device run: are fp8's 16-row tiles with block_K 64 slow because B's
# K-major rows are 64 bytes (half a line), or because they are fp8
# (data/h100-profile-fp8-wide-mma)? The same pairs in fp16 with B stored
# K-major (--b-kmajor): 16x256x32 split 4 (64-byte rows) against 16x128x64
# split 2 (128-byte rows), both 128 programs of 64 K steps of 16 KB of B,
# as fp8's 16x256x64 split 4 against 16x128x128 split 2; with B row-major
# for comparison. 1x8192x8192, checked, timed, PTX counted, and profiled
# under Nsight Compute. Nothing is fitted on it.
set -u
export PYTHONUNBUFFERED=1
D=$OUT/short-rows
mkdir -p $D
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $D/smi-before.txt
. bench/gpu/runs/probe_run.sh
probe fp16-kmajor float16 1x8192x8192 16x256x32_s5_w4_k4,16x128x64_s5_w4_k2,16x256x64_s5_w4_k4,16x128x128_s5_w4_k2,16x64x64_s5_w4_k2 --b-kmajor
probe fp16-nmajor float16 1x8192x8192 16x256x32_s5_w4_k4,16x128x64_s5_w4_k2
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi.txt
tar czf $OUT/res.tgz -C $OUT short-rows
