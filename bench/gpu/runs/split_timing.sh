#!/bin/bash
# Device run: the small-M split-K timings four ways (do_bench twice, a CUDA
# graph, a stream over weights outside the L2) and under ncu
# (bench/gpu/split_timing_probe.py; data/h200-split-timing).
set -u
export PYTHONUNBUFFERED=1
cd bench/gpu
timeout 500 python3 split_timing_probe.py --out $OUT/st --ncu-shape 2x4096x4096 > $OUT/st.log 2>&1; echo "st rc $?"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/st/smi.txt
grep "^#" $OUT/st.log | cut -c1-300; grep -c WRONG $OUT/st.log
tail -3 $OUT/st/ncu.err 2>/dev/null
tar czf $OUT/res.tgz -C $OUT st st.log
