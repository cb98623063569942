#!/bin/bash
# Device run: split-K decode steps in the nn.Linear layout (B K-major, the
# weight stored [N, K]) in fp16 and bf16, never measured before with the
# split kernel (every 16-bit split-K set so far has B row-major). Decoder
# projections of real models (M = 1, 2 to 12, 16 to 48), none measured
# before in its type and layout, chosen after the grown split share
# (split_dram_growth 1) shipped: per type, six where its first pick and the
# flat share's (data/archive/triton-before-split-growth.json) differ with
# the h200 or the h100-sxm preset and one where they agree with both; no
# N x K twice in the set. block_M 16 to 64 (to 128 from M = 16), split 1 to
# 8 with 3, 5 and 6, cuBLAS in the same run. One call (about 500 s on an H100, 560 s on an H200); the
# results are packed after every group, so a call cut short keeps what it
# measured. Nothing is fitted on it: data/<device>-triton-splitk-linear.
# REQUIRE=H200 (or H100) makes it do nothing on another GPU.
set -u
export PYTHONUNBUFFERED=1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in
  *"${REQUIRE:-}"*) echo "gpu: $gpu" ;;
  *) echo "gpu: $gpu, not an ${REQUIRE}: nothing run"; exit 0 ;;
esac
D=$OUT/splitk-linear
mkdir -p $D
S=1,2,3,4,5,6,8
HARNESS_FLAGS=--b-kmajor
. bench/gpu/runs/decode_tiles_run.sh
pack() { tar czf $OUT/res.tgz -C $OUT splitk-linear; }
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $D/smi-before.txt
run_split_typed m 95 float16 16,32,64 8x5120x13824,6x4096x16384,12x4608x36864; pack
run_split_typed bf16-m 95 bfloat16 16,32,64 4x5120x27648,2x4544x18176,12x8960x1536; pack
run_split_typed one 65 float16 16,32,64 1x3072x3072,1x6144x24576; pack
run_split_typed bf16-one 65 bfloat16 16,32,64 1x6144x4096,1x8192x22528; pack
run_split_typed m16 95 float16 16,32,64,128 32x3584x18944,16x3072x8192; pack
run_split_typed bf16-m16 95 bfloat16 16,32,64,128 48x2048x10944,32x2048x8192; pack
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi.txt 2>/dev/null || true
pack
