#!/usr/bin/env python3
"""What do operand rows shorter than a cache line cost the L2?

docs/model.md §3 (l2_request_bytes): with B K-major, a 64-row tile of
block_K 32 in a 16-bit type (both operands' rows 64 bytes, half a 128-byte
line) runs slower against the same tile of block_K 64 than its bytes at the
SM's L2 share predict; with B N-major (B's rows 512 bytes, A's alone 64) it
does not. This probe runs the tutorial kernel of
bench/gpu/triton_gemm_harness.py on bf16 cases with B K-major (rc) and
N-major (rr), checks every element against the fp32 product, times each
variant with do_bench (median) in interleaved rounds, and with --ncu
profiles them once each with NCU_METRICS (one ncu process per case): the
L2's read requests and sectors from the SMs and its throughput, to see
whether half-line rows cost requests the L2 pays for beyond their sectors.

    python3 bench/gpu/partial_line_probe.py --out DIR [--rounds 3] [--ncu]

Writes DIR/probe.jsonl (one line per case, variant and round), prints a
table of medians, and with --ncu DIR/ncu/<case>.csv (ncu's --csv output).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe_util as pu  # noqa: E402

CASES = ["555x10240x8192:bfloat16:rc", "555x10240x8192:bfloat16:rr",
         "4096x4096x4096:bfloat16:rc", "4096x4096x4096:bfloat16:rr"]
# Pairs that differ in block_K alone: 32 gives 64-byte K-major rows, 64 full lines.
VARIANTS = ["64x256x32_s5_w4", "64x256x64_s5_w4", "64x256x32_s4_w4", "64x256x64_s4_w4",
            "128x128x32_s4_w4", "128x128x64_s4_w4"]
NCU_METRICS = [
    "gpu__time_duration.sum",
    "sm__cycles_elapsed.avg",
    "lts__t_requests_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum.per_second",
    "lts__t_requests_srcunit_tex_op_read.sum.per_second",
    "lts__t_bytes.sum.per_second",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
    "lts__t_requests.avg.pct_of_peak_sustained_elapsed",
    "l1tex__m_xbar2l1tex_read_sectors.sum",
    "l1tex__m_xbar2l1tex_read_bytes.sum.per_second",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum",
    "dram__bytes_read.sum",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
]


if __name__ == "__main__":
    pu.tutorial_probe_main(__doc__, __file__, CASES, VARIANTS, NCU_METRICS, 20261202)
