#!/bin/bash
# Device run (one call, about 1 min, any Hopper GPU): bench/gpu/l2_reuse_probe.py
# on one tile at one and two programs an SM (128x128x64 with 4 and 3 stages),
# where a group's programs number between one and two SMs' worth: does a wave
# of two programs an SM let consecutive groups share B? Into
# $OUT/l2-reuse-waves (packed as res.tgz).
set -u
export PYTHONUNBUFFERED=1
D=$OUT/l2-reuse-waves
mkdir -p $D
C=4096x2048x4096,4096x2560x4096,4096x3072x4096,4096x3584x4096,4096x4096x4096,2048x3072x4096
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $D/smi-before.txt
timeout 500 python3 bench/gpu/l2_reuse_probe.py --out $D --cases $C --keys 128x128x64_s4_w4,128x128x64_s3_w4 > $D/log.txt 2>&1
echo "probe rc $?"; tail -5 $D/log.txt; tail -c 600 $D/ncu.err
python3 -c "import torch; p=torch.cuda.get_device_properties(0); print(p.name, p.multi_processor_count, p.L2_cache_size)" > $D/device.txt 2>&1
tar czf $OUT/res.tgz -C $OUT l2-reuse-waves
