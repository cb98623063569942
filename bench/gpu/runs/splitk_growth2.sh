#!/bin/bash
# Device run, a second fresh judge of the split's DRAM share that grows with
# the split factor (split_dram_growth 1, split_dram_share 0.08, shipped)
# against the flat share before it (data/archive/triton-before-split-growth.json;
# docs/model.md §3 "Split-K" and §5), on an H100 (the first judge,
# splitk_growth.sh, ran on one). Decoder projections never measured before in
# their input type, chosen after the grown share was frozen: with the
# h100-sxm preset, twenty where the two families' first picks differ (seven
# fp16, seven bf16, six fp8 with B K-major; M = 1, 2 to 8, 12 to 24 and 32
# to 64 in turn, no N x K twice in a type) and two where they agree. block_M
# 16 to 64 (to 128 from M = 16), split 1 to 8 with 3, 5 and 6, cuBLAS in the
# same run. Two calls, PART=one and two. Nothing is fitted on it:
# data/h100-triton-splitk-growth2.
set -u
export PYTHONUNBUFFERED=1
D=$OUT/splitk-growth2
mkdir -p $D
S=1,2,3,4,5,6,8
. bench/gpu/runs/decode_tiles_run.sh
PART=${PART:-one}
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $D/smi-before-$PART.txt
case $PART in
  one)
    run_split_typed one 80 float16 16,32,64 1x8192x22528,1x8192x28672
    run_split_typed m 150 float16 16,32,64 8x4544x18176,8x4608x36864,12x3072x8192,12x8192x28672
    run_split_typed fp8-one 80 float8_e4m3 16,32,64 1x4608x36864,1x7168x20480
    run_split_typed fp8-m16 45 float8_e4m3 16,32,64,128 32x8192x22528 ;;
  two)
    run_split_typed m16 45 float16 16,32,64,128 48x4096x16384
    run_split_typed m24 45 float16 16,32,64,128 24x5120x27648
    run_split_typed bf16-one 80 bfloat16 16,32,64 1x4608x36864,1x2560x6912
    run_split_typed bf16-m 115 bfloat16 16,32,64 8x4096x12800,6x4096x16384,12x9216x3072
    run_split_typed bf16-m16 115 bfloat16 16,32,64,128 16x5120x27648,64x4096x14336,16x3584x18944
    run_split_typed fp8-m 115 float8_e4m3 16,32,64 8x5120x27648,12x6144x4096,6x8192x28672 ;;
  *) echo "PART must be one or two" >&2; exit 2 ;;
esac
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi-$PART.txt 2>/dev/null || true
tar czf $OUT/res.tgz -C $OUT splitk-growth2
