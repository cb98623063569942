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
import argparse
import os
import sys
import time

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe_util as pu  # noqa: E402
import triton_gemm_harness as h  # noqa: E402

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


def variant(case, key):
    a, b, c = h.case_tensors(case)
    cfg = h.parse_config_key(key)
    kernel = h.matmul_kernel.warmup(*h.kernel_args(a, b, c), grid=(1,), **h.meta_args(cfg))
    kernel._init_handles()
    grid = (triton.cdiv(case.M, cfg["BM"]) * triton.cdiv(case.N, cfg["BN"]),)

    def launch():
        h.matmul_kernel[grid](*h.kernel_args(a, b, c), **h.meta_args(cfg))

    c.fill_(float("nan"))
    launch()
    torch.cuda.synchronize()
    rel, nans = h.rel_error(c, a.float() @ b.float())
    row = dict(case=case.name(), key=key, n_regs=int(kernel.n_regs), n_spills=int(kernel.n_spills),
               shared=int(kernel.metadata.shared), rel_err=rel, nans=nans)
    return row, launch


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ncu", action="store_true")
    ap.add_argument("--one", help="(internal) launch each variant once on this case, for ncu")
    args = ap.parse_args()
    torch.manual_seed(20261202)
    if args.one:
        case = h.parse_case(args.one)
        for key in VARIANTS:
            _, launch = variant(case, key)
            launch()
            torch.cuda.synchronize()
        return
    os.makedirs(args.out, exist_ok=True)
    cases = [h.parse_case(c) for c in CASES]
    t0 = time.perf_counter()
    h.compile_all(sorted({c.klass() for c in cases}), [h.parse_config_key(k) for k in VARIANTS], os.cpu_count() or 4)
    print(f"# compile {time.perf_counter() - t0:.1f} s", flush=True)
    t0 = time.perf_counter()
    launches, rows = {}, {}
    for case in cases:
        for key in VARIANTS:
            row, launch = variant(case, key)
            launches[(case, key)] = launch
            rows[(case, key)] = row
            assert row["nans"] == 0 and row["rel_err"] < 1e-2, row
    times = pu.timing_rounds(launches, rows, args.rounds, os.path.join(args.out, "probe.jsonl"))
    print(f"# timing {time.perf_counter() - t0:.1f} s", flush=True)
    pu.print_medians(cases, VARIANTS, times, lambda case: case.name())
    if args.ncu:
        me = [sys.executable, os.path.abspath(__file__), "--out", args.out, "--one"]
        pu.ncu_each([(case.name().replace(":", "_"), me + [case.name()]) for case in cases], NCU_METRICS,
                    os.path.join(args.out, "ncu"))


if __name__ == "__main__":
    main()
