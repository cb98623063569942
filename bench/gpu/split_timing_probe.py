#!/usr/bin/env python3
"""Are the small-M split-K timings the kernels' own? One kernel, four clocks.

docs/model.md §6: at M = 2 and 8 the split kernels of
bench/gpu/triton_splitk_harness.py measure 1.1-2.1x their predicted time,
and not smoothly: on 2x4096x4096, 64x256x64 split 8 with 5 stages and 4 warps
measured 30.6 us where the same tile with 4 stages measured 21.9. This probe
times each (shape, kernel) of the harness's workspace variant four ways, in
one process, interleaved:

  bench   triton.testing.do_bench(fn) exactly as the harness (fn = GEMM
          launch + reduction launch from Python; 256 MB zeroed before each
          repetition), in two rounds: the harness's number and its repeat;
  graph   do_bench of a CUDA graph that holds fn: the same flush, one launch
          call instead of two Python launches;
  stream  a CUDA graph of R launches of fn over R distinct copies of A and B
          (together at least 3x the L2), no flush: the time per fn of a
          stream of GEMMs on weights that are not in the L2, as a model's
          layers run (the median of 10 replays, divided by R);
  ncu     (--ncu) gpu__time_duration of the GEMM kernel alone, each kernel
          launched once under Nsight Compute (caches flushed by ncu, clocks
          left alone), with the DRAM and L2 traffic.

Every kernel's output is checked first (C and the workspace filled with NaN,
every element compared with the fp32 product); cuBLAS is timed the same
four ways (ncu: its kernels' summed time).

    python3 bench/gpu/split_timing_probe.py --out DIR [--shapes 2x4096x4096,...]
        [--tiles ...] [--splits 1,4,8,16] [--ncu-shape 2x4096x4096]

Writes DIR/probe.jsonl (one line per shape and kernel: bench, bench2, graph,
stream in ms, the check) and with --ncu-shape DIR/ncu.csv (one row per metric and GEMM launch, in the
order of DIR/ncu_order.txt).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

import triton_splitk_harness as sh  # noqa: E402
from triton_gemm_harness import parse_shape, rel_error, shape_name  # noqa: E402

DEFAULT_SHAPES = "2x4096x4096,2x2048x8192,2x1024x16384,8x4096x11008,8x2048x8192"
NCU_METRICS = ["gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
               "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
               "sm__cycles_active.avg", "sm__cycles_elapsed.max",
               "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct",
               "launch__waves_per_multiprocessor"]
STREAM_MIN_BYTES = 3 * 60 * 2**20   # the copies of A and B: at least 3x the L2 (60 MiB)
STREAM_MAX_COPIES = 16


@triton.jit
def splitk_matmul_rotated_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K,
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    # The harness's unsplit kernel (MODE 0), except that program p starts its
    # K loop at K tile p mod k_tiles and wraps around: the programs no longer
    # walk down K in step. Same tiles, same bytes, same order of the grid.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    k_tiles = tl.cdiv(K, BLOCK_K)
    k0 = pid % k_tiles
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for i in range(0, k_tiles):
        kt = i + k0
        kt = tl.where(kt >= k_tiles, kt - k_tiles, kt)
        ks = kt * BLOCK_K + offs_k
        a = tl.load(a_ptr + offs_am[:, None] * stride_am + ks[None, :] * stride_ak, mask=ks[None, :] < K, other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + offs_bn[None, :] * stride_bn, mask=ks[:, None] < K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :],
             accumulator.to(c_ptr.dtype.element_ty), mask=c_mask)


def launcher(cfg, a, b, c, wsk, lock, M, N):
    grid = sh.gemm_grid(M, N, cfg)
    MN = M * N
    rgrid = (triton.cdiv(MN, sh.RED_BLOCK),)
    if cfg["variant"] == "rotate":
        rargs = (a, b, c, M, N, a.shape[1], a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                 c.stride(1))
        rmeta = dict(BLOCK_M=cfg["BM"], BLOCK_N=cfg["BN"], BLOCK_K=cfg["BK"], GROUP_M=sh.GROUP_M,
                     num_warps=cfg["warps"], num_stages=cfg["stages"])

        def fn():
            splitk_matmul_rotated_kernel[(grid[0],)](*rargs, **rmeta)
        return fn
    margs = sh.gemm_meta(cfg)
    if cfg["variant"] == "none":
        gargs = sh.gemm_args(a, b, c, wsk, lock)

        def fn():
            sh.splitk_matmul_kernel[grid](*gargs, **margs)
        return fn
    gargs = sh.gemm_args(a, b, c, wsk, lock)
    rmeta = sh.reduce_meta(cfg["split_k"])

    def fn():
        sh.splitk_matmul_kernel[grid](*gargs, **margs)
        sh.splitk_reduce_kernel[rgrid](wsk, c, MN, MN, **rmeta)
    return fn


def graph_of(fns):
    """A CUDA graph of the calls in order (each already run once, outside capture)."""
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        with torch.cuda.graph(g, stream=s):
            for f in fns:
                f()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    return g


def stream_ms(g, copies, reps=10):
    g.replay()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        g.replay()
        e1.record()
        torch.cuda.synchronize()
        ts.append(e0.elapsed_time(e1) / copies)
    return statistics.median(ts)


def bench(fn):
    return triton.testing.do_bench(fn, warmup=sh.TRITON_WARMUP_MS, rep=sh.TRITON_REP_MS, return_mode="median")


def select(args):
    tiles = sh.tile_grid()
    if args.tiles:
        tiles = [t for t in tiles if t["tile"] in set(args.tiles.split(","))]
    splits = tuple(int(s) for s in args.splits.split(","))
    kernels = sh.kernel_grid(tiles, splits, False, ("workspace",))
    if args.rotate:
        for t in tiles:
            cfg = dict(t)
            cfg.update(split_k=1, variant="rotate", key=sh.kernel_key(t, 1, "rotate"))
            kernels.append(cfg)
    return kernels


def run_ncu_child(args, kernels):
    """--ncu-child: launch every runnable kernel once on one shape (for ncu)."""
    M, N, K = parse_shape(args.ncu_child)
    dt = sh.run_dtype()
    a = torch.randn((M, K), device="cuda", dtype=dt)
    b = torch.randn((K, N), device="cuda", dtype=dt)
    c = torch.empty((M, N), device="cuda", dtype=dt)
    wsk = torch.empty((16, M, N), device="cuda", dtype=torch.float32)
    lock = sh.tile_counters(M, N)
    launched = []
    for cfg in kernels:
        try:
            launcher(cfg, a, b, c, wsk, lock, M, N)()
        except Exception:
            continue
        launched.append(cfg["key"])
    with open(os.path.join(args.out, "ncu_order.txt"), "w") as f:
        f.write("\n".join(launched) + "\n")
    torch.matmul(a, b)
    torch.cuda.synchronize()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--shapes", default=DEFAULT_SHAPES)
    ap.add_argument("--tiles")
    ap.add_argument("--splits", default="1,4,8,16")
    ap.add_argument("--ncu-shape", help="profile every kernel once on this shape under ncu")
    ap.add_argument("--ncu-sections", help="comma list of ncu sections to collect besides the metric list "
                    "(e.g. SpeedOfLight,MemoryWorkloadAnalysis,WarpStateStats)")
    ap.add_argument("--rotate", action="store_true",
                    help="also time each tile unsplit with its programs' K loops rotated (variant rotate: program p "
                    "starts at K tile p mod k_tiles), compiled at its first launch")
    ap.add_argument("--ncu-child", help=argparse.SUPPRESS)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    shapes = [parse_shape(s) for s in args.shapes.split(",")]
    classes = {sh.m_class(s[0]) for s in shapes}
    if len(classes) != 1:
        sys.exit(f"error: one M class per run, got {sorted(classes)}")
    os.environ["TILEPLAN_SPLITK_DTYPE"] = "float16"
    os.environ["TILEPLAN_SPLITK_PROXY_M"] = str(sh.PROXY_M[classes.pop()])
    kernels = select(args)
    if args.ncu_child:
        run_ncu_child(args, kernels)
        return
    os.makedirs(args.out, exist_ok=True)
    t0 = time.perf_counter()
    tasks = [("gemm", k) for k in kernels if k["variant"] != "rotate"] + \
        [("aux", s) for s in sorted({k["split_k"] for k in kernels})]
    compiled = sh.compile_all(tasks, args.workers)
    runnable = [k for k in kernels if k["variant"] == "rotate" or compiled[k["key"]][1] is None]
    print(f"# compile {time.perf_counter() - t0:.1f} s; {len(runnable)} of {len(kernels)} kernels compiled",
          flush=True)
    out = open(os.path.join(args.out, "probe.jsonl"), "w")
    dt = sh.run_dtype()
    for si, (M, N, K) in enumerate(shapes):
        ts = time.perf_counter()
        torch.manual_seed(20261203 + si)
        per_copy = (M * K + K * N) * 2
        copies = max(2, min(STREAM_MAX_COPIES, -(-STREAM_MIN_BYTES // per_copy)))
        As = [torch.randn((M, K), device="cuda", dtype=dt) for _ in range(copies)]
        Bs = [torch.randn((K, N), device="cuda", dtype=dt) for _ in range(copies)]
        c = torch.empty((M, N), device="cuda", dtype=dt)
        wsk = torch.empty((16, M, N), device="cuda", dtype=torch.float32)
        lock = sh.tile_counters(M, N)
        ref = torch.matmul(As[0].float(), Bs[0].float()).to(dt)
        base = {"M": M, "N": N, "K": K, "dtype": "float16", "stream_copies": copies}
        rows = []
        # cuBLAS first.
        cub = [lambda i=i: torch.matmul(As[i], Bs[i], out=c) for i in range(copies)]
        for f in cub:
            f()
        rows.append(dict(base, key="cublas", fns=cub))
        for cfg in runnable:
            fns = [launcher(cfg, As[i], Bs[i], c, wsk, lock, M, N) for i in range(copies)]
            try:
                c.fill_(float("nan"))
                wsk.fill_(float("nan"))
                fns[0]()
                torch.cuda.synchronize()
                rel, nans = rel_error(c, ref)
                for f in fns[1:]:
                    f()
            except Exception as e:  # OutOfResources at launch: not runnable
                print(f"  skip {cfg['key']}: {type(e).__name__}", flush=True)
                continue
            if nans or rel > 1e-2:
                print(f"  WRONG {shape_name((M, N, K))} {cfg['key']}: rel_err {rel:.2e}, NaN {nans}", flush=True)
            rows.append(dict(base, key=cfg["key"], tile=cfg["tile"], split_k=cfg["split_k"],
                             rel_err=rel, n_nan=nans, fns=fns))
        for r in rows:
            r["graph1"] = graph_of(r["fns"][:1])
            r["graphR"] = graph_of(r["fns"])
        # Interleaved: every kernel's bench, then graph, then stream, then bench again.
        for r in rows:
            r["bench"] = bench(r["fns"][0])
        for r in rows:
            r["graph"] = bench(r["graph1"].replay)
        for r in rows:
            r["stream"] = stream_ms(r["graphR"], copies)
        for r in rows:
            r["bench2"] = bench(r["fns"][0])
        for r in rows:
            for k in ("fns", "graph1", "graphR"):
                r.pop(k)
            out.write(json.dumps(r) + "\n")
        out.flush()
        cb = rows[0]
        best = min(rows[1:], key=lambda r: r["bench"])
        print(f"# {shape_name((M, N, K))}: {len(rows) - 1} kernels, {copies} copies, "
              f"{time.perf_counter() - ts:.0f} s; cuBLAS bench {cb['bench'] * 1e3:.1f} graph "
              f"{cb['graph'] * 1e3:.1f} stream {cb['stream'] * 1e3:.1f} us; best bench {best['key']} "
              f"{best['bench'] * 1e3:.1f} (graph {best['graph'] * 1e3:.1f}, stream {best['stream'] * 1e3:.1f})",
              flush=True)
        del As, Bs, c, wsk, lock, ref, rows
        torch.cuda.empty_cache()
    out.close()
    if args.ncu_shape:
        me = [sys.executable, os.path.abspath(__file__), "--out", args.out, "--splits", args.splits,
              "--ncu-child", args.ncu_shape, "--shapes", args.ncu_shape]
        if args.tiles:
            me += ["--tiles", args.tiles]
        if args.rotate:
            me += ["--rotate"]
        what = (sum((["--section", x] for x in args.ncu_sections.split(",")), []) if args.ncu_sections else []) + \
            ["--metrics", ",".join(NCU_METRICS)]
        cmd = ["ncu", "--csv", "--clock-control", "none", "--kernel-name", "regex:splitk_matmul"] + what + me
        t1 = time.perf_counter()
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=400)
        with open(os.path.join(args.out, "ncu.csv"), "w") as f:
            f.write(res.stdout)
        with open(os.path.join(args.out, "ncu.err"), "w") as f:
            f.write(res.stderr[-20000:])
        print(f"# ncu {args.ncu_shape}: rc {res.returncode}, {time.perf_counter() - t1:.1f} s", flush=True)


if __name__ == "__main__":
    main()
