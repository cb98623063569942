#!/bin/bash
# Device run: bench/gpu/decode_ncu_probe.py on the small decode steps whose
# unsplit 16-row programs, one per SM, run 1.26-1.50x their predicted time
# (docs/model.md §6, "A lone unsplit program's run time"): 1x3584x4096 fp16
# (data/h100-triton-splitk-bm16-warps: pick 16x64x128 s5 w4 unsplit, 1.103;
# best 16x128x64 s4 w8 split 4) and 1x5120x5120 fp16 (the worst of the H200
# decode-tile sets: pick 16x64x128 s5 w4 unsplit, 1.140; best 16x256x64 s4
# w4 split 4). Each kernel timed with and without its reduction, after a
# dirty and a clean L2, and under Nsight Compute (DRAM throughput, the spread
# of SM active cycles, warp stalls). Nothing is fitted on it.
set -u
export PYTHONUNBUFFERED=1
D=$OUT/lone-program
mkdir -p $D
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $D/smi-before.txt
. bench/gpu/runs/probe_run.sh
probe small float16 1x3584x4096 16x64x128_s5_w4_k1,16x64x128_s5_w8_k1,16x64x128_s3_w4_k1,16x64x64_s5_w4_k1,16x64x128_s5_w4_k2,16x128x64_s4_w8_k4,16x64x64_s4_w4_k4
probe h200worst float16 1x5120x5120 16x64x128_s5_w4_k1,16x64x128_s5_w8_k1,16x64x64_s5_w4_k1,16x64x128_s5_w4_k2,16x256x64_s4_w4_k4,16x128x64_s4_w8_k4
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv > $D/smi.txt
tar czf $OUT/res.tgz -C $OUT lone-program
