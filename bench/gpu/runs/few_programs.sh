#!/bin/bash
# Device run: why unsplit kernels of 48-264 programs at M < 16 run 1.2-1.8x
# their predicted time where split kernels of as many programs do not
# (data/h200-profile-few-programs): the probe's four timings and ncu's
# memory and warp-state sections on 2x6144x4096.
set -u
export PYTHONUNBUFFERED=1
cd bench/gpu
T=64x64x128_s5_w4,64x64x64_s4_w4,64x128x128_s4_w4,64x128x64_s4_w4,64x256x64_s4_w4,64x256x64_s5_w4,128x64x64_s4_w4,128x128x64_s4_w4
timeout 450 python3 split_timing_probe.py --out $OUT/fp --tiles $T --splits 1,2,4 --rotate \
  --shapes 2x6144x4096,4x14336x4096,8x5120x5120 --ncu-shape 2x6144x4096 \
  --ncu-sections SpeedOfLight,MemoryWorkloadAnalysis,WarpStateStats,LaunchStats,Occupancy,SchedulerStats \
  > $OUT/fp.log 2>&1; echo "fp rc $?"
grep "^#" $OUT/fp.log | cut -c1-250; tail -3 $OUT/fp/ncu.err
tar czf $OUT/res.tgz -C $OUT fp fp.log
