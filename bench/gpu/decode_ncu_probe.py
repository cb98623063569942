#!/usr/bin/env python3
"""Why do decode tiles with large stages run slower than their prediction?

docs/model.md §6 ("16-row tiles whose buffers fill shared memory"): near the
best of a decode step, the 16- and 32-row tiles run 0.81x their predicted
time with 3 stages and up to 1.09x with the most bytes in flight (stages - 2
loads of a stage each), so the model picks 16x256x128 with 4 or 5 stages
where 16x256x64 or 16x64x128 wins. This script compiles a few kernels of
bench/gpu/triton_splitk_harness.py (the same split-K kernel, workspace
variant for SPLIT_K > 1) for one shape, checks every output element against
an fp32 torch reference (outputs poisoned with NaN before each run), times
each with CUDA events through the harness's `timed` (a CUDA graph replayed,
median), with and without the reduction, and with --ncu profiles one launch
of each GEMM with Nsight Compute: DRAM bytes and throughput, L2 hit rate,
warp stall reasons, and the spread of SM active cycles (min, mean, max over
the SMs: how unevenly the programs finish). Each kernel (and cuBLAS) is
also timed after each of two ways of emptying the L2 of the operands:
`dirty`, as triton.testing.do_bench does (it zeroes a 256 MB buffer, which
leaves the L2 full of modified lines that the kernel's own reads must write
back to DRAM), and `clean` (a 256 MB buffer read, so the L2 holds
unmodified lines that can be dropped).

    python3 bench/gpu/decode_ncu_probe.py --out DIR --dtype float16 --shape 1x5120x13824 \\
        --kernels 16x256x128_s4_w4_k4,16x256x64_s4_w4_k4 [--ncu]

Kernel keys are BMxBNxBK_sS_wW_kK. Writes DIR/probe.jsonl (one line per
kernel) and, with --ncu, DIR/ncu/KEY.csv (ncu --page raw) and DIR/ncu.jsonl
(the metrics read back, one line per kernel).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import subprocess
import sys
import time

KEY = re.compile(r"^(\d+)x(\d+)x(\d+)_s(\d+)_w(\d+)_k(\d+)$")
METRICS = [
    "gpu__time_duration.sum", "dram__bytes_read.sum", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__t_sector_hit_rate.pct", "sm__cycles_active.min", "sm__cycles_active.avg", "sm__cycles_active.max",
    "sm__cycles_elapsed.max", "smsp__warps_active.avg.per_cycle_active", "smsp__inst_executed.sum",
]
SECTIONS = ["SpeedOfLight", "MemoryWorkloadAnalysis", "WarpStateStats", "LaunchStats", "Occupancy", "InstructionStats"]


# PTX instructions counted per kernel (static counts in the compiled code):
# which MMA the tile compiles to and how its operands reach it.
PTX_OPS = {
    "mma_f16": re.compile(r"\bmma\.sync\.aligned\.[^ ]*\.f16\.f16"),
    "mma_bf16": re.compile(r"\bmma\.sync\.aligned\.[^ ]*\.bf16\.bf16"),
    "mma_e4m3": re.compile(r"\bmma\.sync\.aligned\.[^ ]*\.e4m3\.e4m3"),
    "wgmma": re.compile(r"\bwgmma\.mma_async"),
    "ldmatrix": re.compile(r"\bldmatrix\."),
    "ldmatrix_trans": re.compile(r"\bldmatrix\.[^ ]*\.trans"),
    "ld_shared": re.compile(r"\bld\.shared\."),
    "cp_async": re.compile(r"\bcp\.async\.(?:ca|cg)"),
    "cvt": re.compile(r"\bcvt\."),
    "prmt": re.compile(r"\bprmt\."),
}


def ptx_mix(ptx):
    """Static counts of the PTX_OPS instructions in a kernel's PTX."""
    return {name: len(rx.findall(ptx)) for name, rx in PTX_OPS.items()}


def parse_key(key):
    m = KEY.match(key)
    if not m:
        print(f"error: kernel '{key}': keys are BMxBNxBK_sS_wW_kK (for example 16x256x64_s4_w4_k4)", file=sys.stderr)
        sys.exit(2)
    bm, bn, bk, st, w, k = map(int, m.groups())
    t = {"BM": bm, "BN": bn, "BK": bk, "stages": st, "warps": w}
    return t, k


def parse_shape_arg(text):
    m = re.match(r"^(\d+)x(\d+)x(\d+)$", text or "")
    if not m or min(map(int, m.groups())) < 1:
        print(f"error: --shape '{text}': MxNxK with positive integers", file=sys.stderr)
        sys.exit(2)
    return tuple(map(int, m.groups()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--dtype", default="float16", choices=["float16", "bfloat16", "float8_e4m3"])
    ap.add_argument("--shape", required=True, help="MxNxK")
    ap.add_argument("--kernels", required=True, help="comma list of BMxBNxBK_sS_wW_kK")
    ap.add_argument("--ncu", action="store_true", help="profile one launch of each GEMM with Nsight Compute")
    ap.add_argument("--one", help="(internal) launch this kernel's GEMM a few times, for ncu")
    ap.add_argument("--b-kmajor", action="store_true", help="store B K-major in a 16-bit type too")
    ap.add_argument("--seed", type=int, default=20261203)
    ap.add_argument("--reps", type=int, default=200, help="timed launches per kernel and L2 mode")
    args = ap.parse_args()
    shape = parse_shape_arg(args.shape)
    keys = args.kernels.split(",") if not args.one else [args.one]
    cfgs = [(k,) + parse_key(k) for k in keys]
    os.environ["TILEPLAN_SPLITK_DTYPE"] = args.dtype
    if args.b_kmajor:
        os.environ["TILEPLAN_SPLITK_B_KMAJOR"] = "1"

    import torch
    import triton
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import triton_splitk_harness as h
    from triton_gemm_harness import rel_error

    M, N, K = shape
    dt = h.run_dtype()
    torch.manual_seed(args.seed)
    a = h.operand(M, K, dt, random=True)
    b = h.operand(K, N, dt, transposed=h.b_kmajor(), random=True)
    c = torch.empty((M, N), device="cuda", dtype=h.run_out_dtype())
    splits = max(k for _, _, k in cfgs)
    wsk = torch.empty((splits, M, N), device="cuda", dtype=torch.float32)
    lock = h.tile_counters(M, N)
    MN = M * N
    rgrid = (triton.cdiv(MN, h.RED_BLOCK),)

    flush = torch.empty(256 * 1024 * 1024 // 4, device="cuda", dtype=torch.int32)
    flush.zero_()

    def timed_l2(fn, mode):
        """Median ms of a CUDA graph of fn, each launch after the L2 is emptied (mode dirty or clean)."""
        fn()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            fn()
        torch.cuda.synchronize()
        empty = flush.zero_ if mode == "dirty" else (lambda: torch.sum(flush))
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(args.reps)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(args.reps)]
        for _ in range(10):
            empty()
            g.replay()
        for i in range(args.reps):
            empty()
            starts[i].record()
            g.replay()
            ends[i].record()
        torch.cuda.synchronize()
        times = sorted(s.elapsed_time(e) for s, e in zip(starts, ends))
        del g
        return times[len(times) // 2]

    def fns(t, k):
        cfg = dict(t, split_k=k, variant="workspace" if k > 1 else "none")
        grid = h.gemm_grid(M, N, cfg)
        gargs = h.gemm_args(a, b, c, wsk, lock)
        margs = h.gemm_meta(cfg)

        def gemm():
            h.splitk_matmul_kernel[grid](*gargs, **margs)

        def whole():
            gemm()
            if k > 1:
                h.splitk_reduce_kernel[rgrid](wsk, c, MN, MN, **h.reduce_meta(k))
        return gemm, whole, grid

    if args.one:
        _, t, k = cfgs[0]
        gemm, whole, _ = fns(t, k)
        for _ in range(5):
            whole()
        torch.cuda.synchronize()
        return

    os.makedirs(args.out, exist_ok=True)
    ref32 = torch.matmul(a.float(), b.float())
    ref = ref32.to(h.run_out_dtype())
    del ref32
    rows = []
    with open(os.path.join(args.out, "probe.jsonl"), "w") as f:
        if h.is_fp8():
            one = torch.ones((), device="cuda", dtype=torch.float32)

            def cublas():
                return torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.float16)
        else:
            def cublas():
                return torch.matmul(a, b)
        cub = {"M": M, "N": N, "K": K, "dtype": args.dtype, "key": "cublas", "ms": h.timed(cublas, 25, 200)}
        for mode in ("dirty", "clean"):
            cub[f"{mode}_ms"] = timed_l2(cublas, mode)
        print(json.dumps(cub), flush=True)
        f.write(json.dumps(cub) + "\n")
        for key, t, k in cfgs:
            gemm, whole, grid = fns(t, k)
            row = {"M": M, "N": N, "K": K, "dtype": args.dtype, "b_layout": "col" if h.b_kmajor() else "row",
                   "key": key, "split_k": k,
                   "n_programs": grid[0] * grid[1]}
            try:
                c.fill_(float("nan"))
                wsk.fill_(float("nan"))
                whole()
                torch.cuda.synchronize()
                rel, n_nan = rel_error(c, ref)
                row.update(rel_err=None if n_nan else rel, n_nan=n_nan)
                row["ms"] = h.timed(whole, 25, 200)
                row["gemm_ms"] = h.timed(gemm, 25, 200) if k > 1 else row["ms"]
                for mode in ("dirty", "clean"):
                    row[f"{mode}_ms"] = timed_l2(whole, mode)
                    row[f"{mode}_gemm_ms"] = timed_l2(gemm, mode) if k > 1 else row[f"{mode}_ms"]
                kern = h.splitk_matmul_kernel.warmup(*h.gemm_args(a, b, c, wsk, lock), grid=(1,),
                                                     **h.gemm_meta(dict(t, split_k=k, variant="workspace" if k > 1 else "none")))
                row.update(regs=kern.n_regs, spills=kern.n_spills, smem_bytes=kern.metadata.shared)
                row["ptx"] = ptx_mix(kern.asm.get("ptx", ""))
            except Exception as e:  # recorded, never silent
                row["error"] = f"{type(e).__name__}: {str(e)[:200]}"
            print(json.dumps(row), flush=True)
            f.write(json.dumps(row) + "\n")
            rows.append(row)
    if not args.ncu:
        return
    ncu_dir = os.path.join(args.out, "ncu")
    os.makedirs(ncu_dir, exist_ok=True)
    with open(os.path.join(args.out, "ncu.jsonl"), "w") as out:
        for key, t, k in cfgs:
            cmd = ["ncu", "--clock-control", "none", "--csv", "--page", "raw", "--kernel-name", "regex:splitk_matmul", "--launch-skip", "2",
                   "--launch-count", "1", "--metrics", ",".join(METRICS)]
            for s in SECTIONS:
                cmd += ["--section", s]
            cmd += [sys.executable, os.path.abspath(__file__), "--out", args.out, "--dtype", args.dtype,
                    "--shape", args.shape, "--kernels", key, "--one", key] + (["--b-kmajor"] if args.b_kmajor else [])
            t0 = time.perf_counter()
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
            with open(os.path.join(ncu_dir, f"{key}.csv"), "w") as g:
                g.write(res.stdout)
            with open(os.path.join(ncu_dir, f"{key}.err"), "w") as g:
                g.write(res.stderr)
            rec = {"key": key, "rc": res.returncode, "s": round(time.perf_counter() - t0, 1)}
            lines = [ln for ln in res.stdout.splitlines() if ln.startswith('"')]
            if len(lines) >= 3:
                table = list(csv.reader(io.StringIO("\n".join(lines))))
                names, values = table[0], table[-1]
                for name, v in zip(names, values):
                    if name in METRICS or "stall" in name or "dram__" in name or "lts__" in name:
                        rec[name] = v
            print(json.dumps({k2: rec[k2] for k2 in list(rec)[:3] + [m for m in METRICS if m in rec]}), flush=True)
            out.write(json.dumps(rec) + "\n")


if __name__ == "__main__":
    main()
