#!/bin/bash
# Device run, the fresh judge of a split's DRAM share that grows with the
# split factor (split_dram_growth 1, split_dram_share 0.08: the candidate,
# shipped since) against the flat share shipped before it (split_dram_growth
# 0, split_dram_share 0.1; docs/model.md §3 "Split-K" and §5). Decoder projections never measured
# before in their input type (Llama 3 8B, Llama 3.1 70B, Qwen2.5 7B, 14B and
# 32B, Gemma 2 27B, Phi-3 mini, Falcon 7B, Granite 8B, GPT-J 6B, GPT-NeoX
# 20B, Command R), M = 1 to 64, fp16, bf16 and fp8 (B K-major), chosen before
# measuring with the device's preset: seventeen where the two families pick
# differently, four where they agree (PART=one's deadline
# left the fourth, fp8 48x2048x10944, unmeasured). block_M 16 to 64 (to 128 from M = 16),
# split 1 to 8 with 3, 5 and 6, cuBLAS in the same run. Two calls, PART=one
# and two; the M = 1 shapes follow the GPU (the two presets' picks differ
# there). Nothing is fitted on it: data/<device>-triton-splitk-growth.
set -u
export PYTHONUNBUFFERED=1
D=$OUT/splitk-growth
mkdir -p $D
S=1,2,3,4,5,6,8
. bench/gpu/runs/decode_tiles_run.sh
PART=${PART:-one}
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $D/smi-before-$PART.txt
case "$GPU" in
  *H200*) ONE16=1x4096x16384,1x36864x4608; ONEBF=1x6144x4096,1x4096x12800; ONE8=1x8192x3072 ;;
  *) ONE16=1x6144x24576,1x2560x6912; ONEBF=1x7168x20480,1x5120x27648; ONE8=1x4544x18176 ;;
esac
echo "$GPU: one $ONE16, bf16-one $ONEBF, fp8-one $ONE8"
case $PART in
  one)
    run_split_typed m 90 float16 16,32,64 4x4096x12800,12x4544x18176,3x13824x5120
    run_split_typed m16 65 float16 16,32,64,128 16x3584x18944,32x4096x12800
    run_split_typed bf16-m 90 bfloat16 16,32,64 12x5120x27648,24x5120x13824,4x8192x22528
    run_split_typed fp8-m 90 float8_e4m3 16,32,64 6x8192x22528,12x4544x18176,6x10240x8192
    run_split_typed fp8-m16 90 float8_e4m3 16,32,64,128 16x8192x28672,64x6144x24576,48x2048x10944
    run_split_typed one 65 float16 16,32,64 $ONE16 ;;
  two)
    run_split_typed bf16-m16 70 bfloat16 16,32,64,128 16x3072x8192,16x4096x16384
    run_split_typed bf16-one 70 bfloat16 16,32,64 $ONEBF
    run_split_typed fp8-one 45 float8_e4m3 16,32,64 $ONE8 ;;
  *) echo "PART must be one or two" >&2; exit 2 ;;
esac
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi-$PART.txt 2>/dev/null || true
tar czf $OUT/res.tgz -C $OUT splitk-growth
