#!/bin/bash
# Device run (one call, at most about 450 s): the fresh judge of fp8's refitted
# register profile (docs/model.md §1, "fp8's profile refitted"), then the
# fp8 half of the misses probe.
# 1. Three fp8 e5m2 classes never compiled before (B K-major; M, N or K not
#    a multiple of 16), one shape each, chosen after the profile was frozen:
#    every kernel's registers and driver-granted occupancy (configs.jsonl)
#    judge the profile, which e5m2 takes from e4m3; their timings are a
#    fresh set of the run-time model in those classes, every element checked
#    against the fp32 product. Into $OUT/fp8-fresh (split.json: all held out).
# 2. MISS=fp8 bench/gpu/misses_probe.py --ncu (600x7168x7168 fp8: the pick,
#    the best and 128x128x64 with three blocks an SM) into $OUT/misses-ncu.
set -u
export PYTHONUNBUFFERED=1
S=700x5120x4096:float8_e5m2:rc,1000x5001x4096:float8_e5m2:rc,2048x50257x2048:float8_e5m2:rc
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw,power.limit --format=csv > $OUT/smi-before.txt
timeout 270 python3 bench/gpu/triton_gemm_harness.py --shapes $S --deadline-s 240 --out $OUT/fp8-fresh > $OUT/fp8-fresh.log 2>&1
echo "fresh rc $?"; grep "^# \|rror" $OUT/fp8-fresh.log | tail -6 | cut -c1-200
cp $OUT/fp8-fresh.log $OUT/fp8-fresh/log.txt; cp $OUT/smi-before.txt $OUT/fp8-fresh/
tar czf $OUT/res.tgz -C $OUT fp8-fresh
D=$OUT/misses-ncu; mkdir -p $D
MISS=fp8 timeout 170 python3 bench/gpu/misses_probe.py --out $D/fp8 --ncu > $D/fp8.log 2>&1
echo "probe rc $?"; grep "^#\|rror" $D/fp8.log | head -8
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $OUT/fp8-fresh/smi.txt 2>/dev/null || true
tar czf $OUT/res.tgz -C $OUT fp8-fresh misses-ncu
