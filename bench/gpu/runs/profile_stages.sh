#!/bin/bash
# Device run: why one more stage runs slower than the model predicts where the
# grid is L2-bound with one block per SM (555x14336x12288 fp16, A and B
# row-major: 64x256x64 with 5 stages is picked, 4 stages run 8% faster,
# 64x256x32 with 4 stages 12%; docs/model.md §6). The same variants timed on
# 512x14336x12288 (M aligned) too, and one launch of each on the first case
# under Nsight Compute (data/h200-profile-stages).
set -u
export PYTHONUNBUFFERED=1
V=64x256x64_s4_w4,64x256x64_s5_w4,64x256x32_s4_w4,64x256x32_s5_w4,128x128x64_s4_w4,128x128x64_s5_w4
S=SpeedOfLight,MemoryWorkloadAnalysis,WarpStateStats,Occupancy
timeout 420 python3 bench/gpu/profile_two_blocks.py --out $OUT/stages --cases 555x14336x12288:float16:rr,512x14336x12288:float16:rr \
  --variants $V --ncu-variants $V --sections $S --ncu > $OUT/stages.log 2>&1; echo "rc $?"
grep -v "^==PROF==" $OUT/stages.log | tail -16 | cut -c1-220
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_event_reasons.active --format=csv > $OUT/smi.txt
tar czf $OUT/res.tgz -C $OUT stages stages.log smi.txt
rm -rf $OUT/stages
