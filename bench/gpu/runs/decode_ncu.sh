#!/bin/bash
# Device run: bench/gpu/decode_ncu_probe.py on two decode steps whose picks
# miss (docs/model.md §6): fp16 1x5120x13824 (pick 16x256x128 s4 k4, best
# 16x256x64 s4 k4) and fp8 e4m3 1x8192x2048, B K-major (pick 16x256x128 s5
# k1 on 32 SMs, best 16x64x128 s5 w8 k1), and fp16 1x14336x3584 (pick
# 16x128x128 s5 k1, best 16x128x64 s5 w8 k1). Timings after a dirty and a
# clean L2, and Nsight Compute metrics (clocks left alone).
set -u
export PYTHONUNBUFFERED=1
D=$OUT/decode-ncu
mkdir -p $D
run() {  # name dtype shape kernels
  timeout 330 python3 bench/gpu/decode_ncu_probe.py --ncu --out $D/$1 --dtype $2 --shape $3 --kernels $4 > $D/$1.log 2>&1
  echo "$1 rc $?"; tail -3 $D/$1.log | cut -c1-200
}
run fp16 float16 1x5120x13824 16x256x128_s4_w4_k4,16x256x128_s3_w4_k4,16x256x64_s4_w4_k4,16x256x64_s5_w4_k4,16x256x64_s3_w4_k4,16x128x128_s5_w4_k2,16x128x64_s5_w8_k8,64x256x64_s4_w4_k4
run fp16b float16 1x14336x3584 16x128x128_s5_w4_k1,16x128x64_s5_w8_k1,16x128x64_s5_w4_k1,16x256x64_s4_w4_k1,16x256x128_s4_w4_k1
run fp8 float8_e4m3 1x8192x2048 16x256x128_s5_w4_k1,16x128x128_s5_w8_k1,16x64x128_s5_w8_k1,16x64x128_s5_w4_k1,16x256x128_s5_w4_k4
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi.txt
tar czf $OUT/res.tgz -C $OUT decode-ncu
