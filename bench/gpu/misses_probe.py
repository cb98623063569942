#!/usr/bin/env python3
"""What do the gate's two misses at full clock do that the model does not see?

Issue 9's gate leaves out five classes, each for one case. Two of those
cases ran every row at the boost clock on an H100 and still missed by the
same margin as on the H200 (data/h100-triton-misses-clocks), so they are
the model's alone:

- fp8 e4m3 600x7168x7168 (B K-major): the model has 64x128x128 with 3
  stages (three blocks an SM) and 128x128x128 with 5 stages (one) within
  1% of each other; the second measures 1.10-1.14x faster.
- fp16 333x5001x4001 (M, N and K unaligned: narrow loads, no async copy):
  the model picks 128x64x32 with 2 stages; block_K 64 measures 1.12x faster.

A third set, MISS=l2bound, is the gated case a model of B's reuse in L2
measured on an H100 (data/h100-profile-l2-reuse) would take over the gate:
fp16 700x28672x8192 with B K-major, where 64x256x64 with 5 stages (the
best, priced L2-bound) and 128x128x64 with 3 stages sit within 0.5% in the
model and 10% apart measured (docs/model.md §6, "B's reuse in L2").

This probe runs each case's pick, its measured best and their neighbours
(MISS=fp8, mnk or l2bound picks the set), checks every element against the fp32
product, times each with do_bench (median) in interleaved rounds, and with
--ncu profiles them once each: the tensor pipe's active cycles, the SMs'
active cycles and warps, DRAM and L2 traffic, global load requests
(narrow loads and async copies), instructions issued, and the stall reasons.

    MISS=fp8 python3 bench/gpu/misses_probe.py --out DIR [--rounds 3] [--ncu]

Writes DIR/probe.jsonl (one line per case, tile and round), prints a table of
medians, and with --ncu DIR/ncu/<case>.csv (ncu's --csv output). Without
the tensor pipe's metric where ncu does not know it (NO_TENSOR=1).
"""
import os
import sys

SETS = {
    "fp8": (["600x7168x7168:float8_e4m3:rc"],
            ["128x128x128_s5_w4", "64x128x128_s3_w4", "128x128x128_s3_w4", "64x128x128_s5_w4",
             "128x128x128_s5_w8", "128x128x64_s3_w4"]),
    "mnk": (["333x5001x4001:float16:rr"],
            ["128x64x32_s2_w4", "128x64x64_s2_w4", "128x64x32_s3_w4", "128x64x64_s3_w4",
             "128x128x64_s2_w8", "64x64x64_s2_w4"]),
    "l2bound": (["700x28672x8192:float16:rc"],
                ["64x256x64_s5_w4", "128x128x64_s3_w4", "128x128x64_s3_w8", "64x256x64_s4_w4",
                 "128x256x64_s4_w8", "256x128x64_s4_w8"]),
}
NCU_METRICS = [
    "gpu__time_duration.sum",
    "sm__cycles_active.avg",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "dram__bytes_read.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum",
    "smsp__inst_executed.sum",
    "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio",
]
if not os.environ.get("NO_TENSOR"):
    NCU_METRICS.insert(2, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active")


if __name__ == "__main__":
    which = os.environ.get("MISS", "fp8")
    if which not in SETS:
        print(f"misses_probe.py: MISS={which!r}: must be one of {', '.join(SETS)}", file=sys.stderr)
        sys.exit(2)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import probe_util as pu  # triton and torch: on the GPU machine only

    cases, variants = SETS[which]
    pu.tutorial_probe_main(__doc__, __file__, cases, variants, NCU_METRICS, 20261207)
