#!/usr/bin/env python3
"""Does N's parity or B's row alignment set the stage count of B-narrow tiles?

data/h200-triton-v27: with A and B row-major, N not a multiple of 16 and K a
multiple (B through registers with 2-byte loads), 256x64x64 with 4 warps is at
least as fast with 2 stages as with 3 for every even N, and slower for every
odd N. N enters the kernel three ways: the grid and masks, the rows of B
(stride_bk = ldb) and the rows of C (stride_cm = ldc). This script separates
them: it runs the tutorial kernel of bench/gpu/triton_gemm_harness.py on B
and C stored inside wider buffers (ldb, ldc >= N, neither a multiple of 16,
so Triton compiles the same kernel), checks every element of C against the
fp32 product and that the padding columns of C stay untouched (NaN), and
times each variant with do_bench (median) in interleaved rounds.

    python3 bench/gpu/parity_probe.py --out DIR [--rounds 3] [--ncu]
    python3 bench/gpu/parity_probe.py --sweep --out DIR

--sweep runs SWEEP_CASES with SWEEP_VARIANTS instead: every ldb from N to
N + 128 (B's row stride over every residue of 256 bytes) for two N, to tell
a rule of alignment (the stride modulo 16 bytes) from one of the L1's set
mapping (a pattern over larger residues).

Writes DIR/probe.jsonl (one line per case, layout and variant and round) and
prints a table of medians. With --ncu it also profiles NCU_CASES with the
NCU_METRICS below (one ncu process per case), into DIR/ncu.tar.gz.
"""
import argparse
import os
import subprocess
import sys
import time

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe_util as pu  # noqa: E402
import triton_gemm_harness as h  # noqa: E402

# (M, N, K, ldb, ldc): the bytes between B's rows are 2*ldb; 3000 and 3032
# give 16-byte-aligned rows, 3004 8, 3002 4, 3001 2.
CASES = [
    (4096, 3000, 4096, 3000, 3000), (4096, 3000, 4096, 3001, 3000), (4096, 3000, 4096, 3002, 3000),
    (4096, 3000, 4096, 3004, 3000), (4096, 3000, 4096, 3000, 3001),
    (4096, 3001, 4096, 3001, 3001), (4096, 3001, 4096, 3032, 3001), (4096, 3001, 4096, 3002, 3001),
    (4096, 3001, 4096, 3001, 3032),
    (4096, 1000, 2048, 1000, 1000), (4096, 1000, 2048, 1001, 1000),
    (4096, 1001, 2048, 1001, 1001), (4096, 1001, 2048, 1032, 1001),
]
VARIANTS = ["256x64x64_s2_w4", "256x64x64_s3_w4", "256x64x64_s4_w4", "128x64x64_s2_w4", "128x64x64_s3_w4"]
# The sweep: N = 3000 (K 2048) with ldb 3000..3128 and N = 1000 (K 2048) with
# ldb 1000..1064; C packed (ldc = N, which the probe above found irrelevant).
SWEEP_CASES = [(4096, 3000, 2048, ldb, 3000) for ldb in range(3000, 3129)] + \
    [(4096, 1000, 2048, ldb, 1000) for ldb in range(1000, 1065)]
SWEEP_VARIANTS = ["256x64x64_s2_w4", "256x64x64_s3_w4", "128x64x64_s2_w4", "128x64x64_s3_w4"]
NCU_CASES = [(4096, 3000, 4096, 3000, 3000), (4096, 3000, 4096, 3001, 3000),
             (4096, 3001, 4096, 3001, 3001), (4096, 3001, 4096, 3032, 3001)]
NCU_VARIANTS = ["256x64x64_s2_w4", "256x64x64_s3_w4"]
NCU_METRICS = [
    "gpu__time_duration.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum",
    "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__m_xbar2l1tex_read_sectors.sum",
    "l1tex__m_l1tex2xbar_write_sectors.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
    "lts__t_sectors_srcunit_tex_op_write.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "breakdown:l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
    "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio",
]


def case_name(c):
    m, n, k, ldb, ldc = c
    return f"{m}x{n}x{k}_ldb{ldb}_ldc{ldc}"


def parse_case_name(text):
    shape, ldb, ldc = text.split("_")
    m, n, k = map(int, shape.split("x"))
    return (m, n, k, int(ldb[3:]), int(ldc[3:]))


def tensors(c):
    m, n, k, ldb, ldc = c
    if ldb < n or ldc < n:
        raise ValueError(f"{case_name(c)}: a leading dimension is smaller than N")
    a = torch.randn((m, k), device="cuda", dtype=torch.float16)
    b = torch.randn((k, ldb), device="cuda", dtype=torch.float16)[:, :n]
    cbuf = torch.empty((m, ldc), device="cuda", dtype=torch.float16)
    return a, b, cbuf


def variant(c, key, time_it=True):
    a, b, cbuf = tensors(c)
    cout = cbuf[:, :c[1]]
    cfg = h.parse_config_key(key)
    kernel = h.matmul_kernel.warmup(*h.kernel_args(a, b, cout), grid=(1,), **h.meta_args(cfg))
    kernel._init_handles()
    grid = (triton.cdiv(c[0], cfg["BM"]) * triton.cdiv(c[1], cfg["BN"]),)

    def launch():
        h.matmul_kernel[grid](*h.kernel_args(a, b, cout), **h.meta_args(cfg))

    cbuf.fill_(float("nan"))
    launch()
    torch.cuda.synchronize()
    rel, nans = h.rel_error(cout, a.float() @ b.float())
    pad_written = int((~torch.isnan(cbuf[:, c[1]:])).sum()) if c[4] > c[1] else 0
    row = dict(case=case_name(c), key=key, n_regs=int(kernel.n_regs), n_spills=int(kernel.n_spills),
               shared=int(kernel.metadata.shared), rel_err=rel, nans=nans, pad_written=pad_written)
    return row, launch


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ncu", action="store_true")
    ap.add_argument("--sweep", action="store_true", help="time SWEEP_CASES with SWEEP_VARIANTS instead")
    ap.add_argument("--one", help="(internal) launch each NCU_VARIANTS once on this case, for ncu")
    args = ap.parse_args()
    torch.manual_seed(20261202)
    if args.one:
        c = parse_case_name(args.one)
        for key in NCU_VARIANTS:
            _, launch = variant(c, key)
            launch()
            torch.cuda.synchronize()
        return
    os.makedirs(args.out, exist_ok=True)
    cases, variants = (SWEEP_CASES, SWEEP_VARIANTS) if args.sweep else (CASES, VARIANTS)
    t0 = time.perf_counter()
    h.compile_all(["float16:rr:MnK"], [h.parse_config_key(k) for k in variants], os.cpu_count() or 4)
    print(f"# compile {time.perf_counter() - t0:.1f} s", flush=True)
    t0 = time.perf_counter()
    launches, rows = {}, {}
    for c in cases:
        for key in variants:
            row, launch = variant(c, key)
            launches[(c, key)] = launch
            rows[(c, key)] = row
            assert row["nans"] == 0 and row["pad_written"] == 0 and row["rel_err"] < 1e-2, row
    times = pu.timing_rounds(launches, rows, args.rounds, os.path.join(args.out, "probe.jsonl"))
    print(f"# timing {time.perf_counter() - t0:.1f} s", flush=True)
    pu.print_medians(cases, variants, times, case_name)
    if args.ncu and not args.sweep:
        ncu_dir = os.path.join(args.out, "ncu")
        me = [sys.executable, os.path.abspath(__file__), "--out", args.out, "--one"]
        pu.ncu_each([(case_name(c), me + [case_name(c)]) for c in NCU_CASES], NCU_METRICS, ncu_dir)
        subprocess.run(["tar", "czf", os.path.join(args.out, "ncu.tar.gz"), "-C", args.out, "ncu"], check=False)
        subprocess.run(["rm", "-rf", ncu_dir], check=False)


if __name__ == "__main__":
    main()
