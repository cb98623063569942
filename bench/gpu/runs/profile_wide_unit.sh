#!/bin/bash
# Device run: a lone warpgroup 256 columns wide (64x256x64, 5 stages, 4 warps)
# against 128x128x64 (3 stages, 4 warps), 256x128x64 (4 stages, 8 warps) and
# 64x256x64 with 8 warps, on 700x28672x8192 fp16 with B stored K-major (the
# nn.Linear layout) and N-major: timed, SASS counts, and one launch of each
# under Nsight Compute (data/h200-profile-wide-unit; docs/model.md §3,
# kmajor_wide_unit_saving).
set -u
export PYTHONUNBUFFERED=1
V=64x256x64_s5_w4,128x128x64_s3_w4,256x128x64_s4_w8,64x256x64_s5_w8
S=SpeedOfLight,ComputeWorkloadAnalysis,MemoryWorkloadAnalysis,WarpStateStats,Occupancy
for L in rc rr; do
  timeout 280 python3 bench/gpu/profile_two_blocks.py --out $OUT/$L --cases 700x28672x8192:float16:$L \
    --variants $V --ncu-variants $V --sections $S --ncu > $OUT/$L.log 2>&1; echo "$L rc $?"
  grep -v "^==PROF==" $OUT/$L.log | tail -12 | cut -c1-220
done
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/smi.txt
tar czf $OUT/res.tgz -C $OUT rc rr rc.log rr.log smi.txt
rm -rf $OUT/rc $OUT/rr
