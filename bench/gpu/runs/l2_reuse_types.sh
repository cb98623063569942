#!/bin/bash
# Device run (one call, about 1 min, any Hopper GPU): bench/gpu/l2_reuse_probe.py
# beyond fp16 with A and B row-major: fp16 and fp8 e4m3 with B K-major, bf16,
# and the fp8 miss 600x7168x7168, into $OUT/l2-reuse-types (packed as res.tgz).
set -u
export PYTHONUNBUFFERED=1
D=$OUT/l2-reuse-types
mkdir -p $D
C=2048x2048x4096:float16:rc,2048x4096x4096:float16:rc,4096x4096x4096:float16:rc,2048x8192x1024:float16:rc
C=$C,2048x3072x4096:bfloat16:rr
C=$C,2048x2048x8192:float8_e4m3:rc,2048x4096x4096:float8_e4m3:rc,2048x8192x4096:float8_e4m3:rc
C=$C,4096x8192x4096:float8_e4m3:rc,2048x16384x4096:float8_e4m3:rc,600x7168x7168:float8_e4m3:rc
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $D/smi-before.txt
timeout 500 python3 bench/gpu/l2_reuse_probe.py --out $D --cases $C > $D/log.txt 2>&1
echo "probe rc $?"; tail -5 $D/log.txt; tail -c 600 $D/ncu.err
python3 -c "import torch; p=torch.cuda.get_device_properties(0); print(p.name, p.multi_processor_count, p.L2_cache_size)" > $D/device.txt 2>&1
tar czf $OUT/res.tgz -C $OUT l2-reuse-types
