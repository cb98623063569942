#!/bin/bash
# Device run: the per-SM copy probe over 128 and 256 threads and one or two
# blocks per SM, with the device-to-device copy ceiling
# (data/h200-profile-sm-copy/wide).
set -u
mkdir -p $OUT/sm-copy-wide
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/sm-copy-wide/smi_before.txt
nvcc -O3 -arch=sm_90 -Xptxas -v -o $OUT/sm_copy_probe bench/gpu/sm_copy_probe.cu > $OUT/sm-copy-wide/build.log 2>&1 || { cat $OUT/sm-copy-wide/build.log; exit 1; }
timeout 240 $OUT/sm_copy_probe --wide > $OUT/sm-copy-wide/probe.jsonl 2> $OUT/sm-copy-wide/probe.log; echo "probe rc $?"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/sm-copy-wide/smi_after.txt
rm -f $OUT/sm_copy_probe
cat $OUT/sm-copy-wide/probe.log | head -80
tar czf $OUT/res.tgz -C $OUT sm-copy-wide
