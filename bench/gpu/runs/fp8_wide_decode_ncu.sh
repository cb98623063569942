#!/bin/bash
# Device run: bench/gpu/decode_ncu_probe.py on fp8 e4m3 decode steps (B
# K-major) with 64-row wgmma tiles, unsplit, where the model is about 2x
# optimistic (docs/model.md §6; data/h200-triton-mfew): 4x8192x8192 with
# 64x128x128 and 5 stages is predicted 31 us and measured 62, while every
# 64-row tile there moves 1.1-1.3 TB/s. 6x4096x14336 misses the same way;
# 7x6144x4096 (data/h200-triton-mfp8-fresh) is predicted within 12% and
# serves as the contrast. A 16-row mma tile of each shape rides along.
# Timings after a dirty and a clean L2, and Nsight Compute metrics.
set -u
export PYTHONUNBUFFERED=1
D=$OUT/fp8-wide-decode-ncu
mkdir -p $D
run() {  # name dtype shape kernels
  timeout 330 python3 bench/gpu/decode_ncu_probe.py --ncu --out $D/$1 --dtype $2 --shape $3 --kernels $4 > $D/$1.log 2>&1
  echo "$1 rc $?"; tail -3 $D/$1.log | cut -c1-200
}
run m4 float8_e4m3 4x8192x8192 64x128x128_s5_w4_k1,64x128x128_s3_w4_k1,64x64x64_s5_w4_k1,64x64x128_s5_w4_k1,64x256x128_s4_w4_k1,16x128x128_s5_w4_k1
run m6 float8_e4m3 6x4096x14336 64x64x128_s5_w4_k1,64x256x128_s4_w4_k1,64x128x128_s3_w4_k1,16x128x128_s5_w4_k1
run m7 float8_e4m3 7x6144x4096 64x128x128_s5_w4_k1,64x64x128_s5_w4_k1,64x256x128_s5_w4_k1,16x128x128_s5_w4_k1
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi.txt
tar czf $OUT/res.tgz -C $OUT fp8-wide-decode-ncu
