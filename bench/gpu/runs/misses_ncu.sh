#!/bin/bash
# Device run: the two misses of the gate that ran at full clock
# (bench/gpu/misses_probe.py: fp8 600x7168x7168 and fp16 333x5001x4001),
# timed and profiled under Nsight Compute, pick beside best (about 5 min).
# If ncu does not know the tensor pipe's metric, the profile is taken again
# without it. Results under $OUT/misses-ncu/<set>, packed as res.tgz.
set -u
export PYTHONUNBUFFERED=1
D=$OUT/misses-ncu
mkdir -p $D
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $D/smi-before.txt
for s in fp8 mnk; do
  MISS=$s timeout 280 python3 bench/gpu/misses_probe.py --out $D/$s --ncu > $D/$s.log 2>&1
  echo "$s rc $?"; grep "^#\|rror" $D/$s.log | head -8
  if ! grep -q matmul $D/$s/ncu/*.csv 2>/dev/null; then
    head -c 600 $D/$s/ncu/*.err 2>/dev/null
    MISS=$s NO_TENSOR=1 timeout 200 python3 bench/gpu/misses_probe.py --out $D/$s-nt --ncu > $D/$s-nt.log 2>&1
    echo "$s without the tensor metric rc $?"
  fi
  tar czf $OUT/res.tgz -C $OUT misses-ncu
done
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi.txt 2>/dev/null || true
tar czf $OUT/res.tgz -C $OUT misses-ncu
