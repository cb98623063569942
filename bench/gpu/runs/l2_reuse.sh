#!/bin/bash
# Device run (one call, about 3 min, any Hopper GPU): bench/gpu/l2_reuse_probe.py,
# the share of B that stays in L2 from one group of programs to the next,
# into $OUT/l2-reuse (packed as res.tgz).
set -u
export PYTHONUNBUFFERED=1
D=$OUT/l2-reuse
mkdir -p $D
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $D/smi-before.txt
timeout 500 python3 bench/gpu/l2_reuse_probe.py --out $D > $D/log.txt 2>&1
echo "probe rc $?"; tail -5 $D/log.txt; tail -c 600 $D/ncu.err
python3 -c "import torch; p=torch.cuda.get_device_properties(0); print(p.name, p.multi_processor_count, p.L2_cache_size)" > $D/device.txt 2>&1
tar czf $OUT/res.tgz -C $OUT l2-reuse
