#!/bin/bash
# Device run: per-SM asynchronous-copy throughput (bench/gpu/sm_copy_probe.cu)
# from DRAM and from the L2, by blocks running, stage bytes and stages.
set -u
mkdir -p $OUT/sm-copy
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/sm-copy/smi_before.txt
nvcc -O3 -arch=sm_90 -Xptxas -v -o $OUT/sm_copy_probe bench/gpu/sm_copy_probe.cu > $OUT/sm-copy/build.log 2>&1 || { cat $OUT/sm-copy/build.log; exit 1; }
timeout 240 $OUT/sm_copy_probe > $OUT/sm-copy/probe.jsonl 2> $OUT/sm-copy/probe.log; echo "probe rc $?"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/sm-copy/smi_after.txt
rm -f $OUT/sm_copy_probe
grep -v "^#" $OUT/sm-copy/probe.log | awk '$4==4 || NR==1' | head -60
tail -1 $OUT/sm-copy/probe.log
