#!/bin/bash
# Device run, a probe: the same 16-bit decode steps with B row-major and B
# K-major, side by side in one call, to tell whether the layout of B or the
# input type is what makes the grown split share (split_dram_growth) a trade
# with B row-major and a clear gain with B K-major
# (data/h100-triton-splitk-growth2 against -linear; docs/model.md §5,
# "splitk-linear"). Shapes already measured in one layout (linear's, rc;
# growth2's, rr), now in both. Two calls, PART=fp16 and PART=bf16 (about
# 300 s each). Every case held out; not a gate (its cases repeat earlier
# sets'): data/<device>-triton-splitk-layout-pairs.
set -u
export PYTHONUNBUFFERED=1
D=$OUT/splitk-layout-pairs
mkdir -p $D
S=1,2,3,4,5,6,8
. bench/gpu/runs/decode_tiles_run.sh
pack() { tar czf $OUT/res.tgz -C $OUT splitk-layout-pairs; }
PART=${PART:-fp16}
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $D/smi-before-$PART.txt
both() {  # name deadline dtype block_ms shapes: B row-major into NAME-rr, B K-major into NAME-rc
  HARNESS_FLAGS= run_split_typed $1-rr $2 $3 $4 $5; pack
  HARNESS_FLAGS=--b-kmajor run_split_typed $1-rc $2 $3 $4 $5; pack
}
case $PART in
  fp16)
    both m 95 float16 16,32,64 8x5120x13824,6x4096x16384,8x4544x18176
    both one 65 float16 16,32,64 1x6144x24576,1x8192x22528 ;;
  bf16)
    both bf16-m 65 bfloat16 16,32,64 4x5120x27648,8x4096x12800
    both bf16-one 65 bfloat16 16,32,64 1x8192x22528,1x4608x36864 ;;
  *) echo "PART must be fp16 or bf16" >&2; exit 2 ;;
esac
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi-$PART.txt 2>/dev/null || true
pack
