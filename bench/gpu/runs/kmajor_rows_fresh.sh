#!/bin/bash
# Device run: fresh 16-bit decode steps with B K-major (nn.Linear), measured
# after kmajor_b_row_dram_share (a K-major B's rows under 256 bytes cost
# DRAM time) was frozen at 0.1 on the layout pairs
# (data/h200-triton-splitk-layout-pairs). Decoder projections of real models
# whose N x K was never measured before with B K-major in its type, chosen
# before measuring: per type, four where the first pick with the term and
# without it (data/archive/triton-before-kmajor-b-rows.json) differ with both
# the h200 and the h100-sxm presets (two at M = 1, two at M = 2 to 12, drawn
# at random with a fixed seed) and one where they agree with both; no N x K
# twice in a type. Grid as splitk_linear.sh (block_M 16 to 64, split 1 to 8
# with 3, 5 and 6), cuBLAS in the same run; packed after every group. One
# call (about 400 s); ONLY=m,bf16-m runs those groups alone. Nothing is
# fitted on it:
# data/<device>-triton-splitk-kmajor-fresh.
set -u
export PYTHONUNBUFFERED=1
D=$OUT/splitk-kmajor-fresh
mkdir -p $D
S=1,2,3,4,5,6,8
HARNESS_FLAGS=--b-kmajor
. bench/gpu/runs/decode_tiles_run.sh
want() { case ",${ONLY:-m,bf16-m,one,bf16-one}," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
pack() { tar czf $OUT/res.tgz -C $OUT splitk-kmajor-fresh; }
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $D/smi-before.txt
want m && run_split_typed m 105 float16 16,32,64 2x16384x4096,6x36864x4608,8x2048x8192 && pack
want bf16-m && run_split_typed bf16-m 105 bfloat16 16,32,64 8x13824x5120,4x36864x4608,3x10240x2560 && pack
want one && run_split_typed one 75 float16 16,32,64 1x2560x6912,1x2048x10944 && pack
want bf16-one && run_split_typed bf16-one 75 bfloat16 16,32,64 1x3072x8192,1x27648x5120 && pack
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi.txt 2>/dev/null || true
pack
