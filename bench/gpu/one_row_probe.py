#!/usr/bin/env python3
"""Where do A's requests land when A has one row (M = 1)?

docs/model.md §3 ("A of one row"): at M = 1 Triton compiles the tutorial
kernel apart, every row of its A tile is A's one row, and the same compiled
code runs up to 2.5x slower than at M = 8, the more the larger A's share of
a stage (data/h200-profile-m1). The model prices it as L2 bytes
(one_row_a_extra). This probe runs the kernel of
bench/gpu/triton_gemm_harness.py at M = 1 and M = 8 on the same N and K,
checks every element against the fp32 product, times each tile with do_bench
(median) in interleaved rounds, and with --ncu profiles them once each (one
ncu process per case) with per-slice rollups of the L2's read traffic: the
sum, average and maximum over the L2 slices (lts units) of its requests and
sectors, to see whether M = 1 concentrates the requests on few slices.

    python3 bench/gpu/one_row_probe.py --out DIR [--rounds 3] [--ncu]

Writes DIR/probe.jsonl (one line per case, tile and round), prints a table of
medians, and with --ncu DIR/ncu/<case>.csv (ncu's --csv output).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe_util as pu  # noqa: E402

CASES = ["1x4096x14336:float16:rr", "8x4096x14336:float16:rr"]
# A a fifth, a third and two thirds of a stage.
VARIANTS = ["64x256x64_s5_w4", "64x128x64_s5_w4", "128x64x64_s5_w4"]
NCU_METRICS = [
    "gpu__time_duration.sum",
    "lts__t_requests_srcunit_tex_op_read.sum",
    "lts__t_requests_srcunit_tex_op_read.avg",
    "lts__t_requests_srcunit_tex_op_read.max",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_read.avg",
    "lts__t_sectors_srcunit_tex_op_read.max",
    "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__throughput.max.pct_of_peak_sustained_elapsed",
    "lts__t_requests.max.pct_of_peak_sustained_elapsed",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum",
    "dram__bytes_read.sum",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
]


if __name__ == "__main__":
    pu.tutorial_probe_main(__doc__, __file__, CASES, VARIANTS, NCU_METRICS, 20261203)
