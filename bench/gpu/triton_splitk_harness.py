#!/usr/bin/env python3
"""Split-K ground truth: the Triton-tutorial fp16 GEMM with its K loop split, on one GPU.

Groundwork for "Split-K: fill the GPU when tiles are few". The kernel is the
one of triton_gemm_harness.py (Triton tutorial 03: A[M,K] and B[K,N]
row-major fp16, fp32 accumulation with tl.dot, GROUP_M = 8 grouped order over
the M x N tiles, masked K edge, wrapped M/N edges, masked stores) with two
more constexprs:

  SPLIT_K  program id axis 1 picks a K slice of ceil(K / (SPLIT_K * BK)) * BK
           elements (the last slices may be short or empty); the grid is
           (tiles, SPLIT_K). SPLIT_K = 1 is the plain kernel: whole K loop,
           fp16 C written directly (variant "none").
  MODE     how the partial tiles of SPLIT_K > 1 are combined:
           "atomic":    ws32[M,N] (fp32) zeroed with torch's zero_(), every
                        split adds its tile with tl.atomic_add(sem="relaxed"),
                        then a cast kernel writes fp16 C; the timed fn is the
                        whole sequence zero_ + GEMM + cast;
           "workspace": every split stores its fp32 tile to wsk[split, M, N],
                        then a reduction kernel sums the SPLIT_K partials and
                        writes fp16 C; the timed fn is GEMM + reduction.
           "fused":     one kernel. Every split adds its tile into ws32[M,N]
                        with tl.atomic_add(sem="relaxed"), then (after a CTA
                        barrier) increments its tile's counter with an
                        acq_rel atomic; the program that sees SPLIT_K - 1 is
                        the tile's last: it reads the summed tile (.cg),
                        waits at a CTA barrier, stores zeros back into its
                        part of ws32, writes C and resets the counter.
           "fused_xchg": the same, the sum read and zeroed in one
                        tl.atomic_xchg. ws32 and the counters are zeroed
                        once at allocation and left zero by every launch, so
                        the timed fn is the GEMM alone.
           The cast is the reduction kernel with SPLIT = 1.

Output (format of data/h200-triton/, see bench/gpu/SPLITK.md):

    configs.jsonl   one line per kernel (tile x split x variant): what the
                    compiler and the driver granted, or `error`
    timings.jsonl   one line per (shape, kernel), plus "cublas" and the
                    auxiliary kernels alone ("aux_zero", "aux_cast",
                    "aux_reduce_k{S}") per shape
    meta.json       device, driver, versions, clocks, phase times, per shape
    split.json      calibration and held-out shape lists

Method (as triton_gemm_harness.py): random normal fp16 inputs seeded per
shape; reference = torch.matmul of the operands upcast to fp32, cast to fp16;
before each check C and both workspaces are filled with NaN, the timed fn runs
once and every element is compared (rel_err = ||C - ref|| / ||ref|| in fp32,
NaNs counted); timing = triton.testing.do_bench(g.replay, warmup=5, rep=25,
return_mode="median") of a CUDA graph g that holds the timed fn (cuBLAS:
warmup=10, rep=50; --timing launch times the fn's own launches, as the
datasets measured before data/h200-split-timing did); occupancy =
cuOccupancyMaxActiveBlocksPerMultiprocessor(function, 32 * warps, shared).
Every kernel is compiled once, in spawned worker processes that share Triton's
on-disk cache, on a proxy problem 256 x 256 x 4096 (all sizes and strides
multiples of 16, unit inner strides, like every shape below), then loaded from
that cache by the main process: one compile per kernel serves all shapes.

Grid and budget (the arithmetic that chose it):

  tiles: BM in {64,128} x BN in {64,128,256} x BK in {64,128} x stages
  {3,4,5} x warps {4,8} = 72. Kernels per tile: SPLIT_K = 1 (1) + SPLIT_K in
  {2,4,8,16} x {atomic, workspace} (8) = 9, so the full product is 648
  kernels. 22 tiles are refused for shared memory (stages * (BM*BK + BK*BN) *
  2 B > 232448 B: 64x128x128 s5, 64x256x128 s3-5, 128x64x128 s5,
  128x128x128 s4-5, 128x256x64 s5, 128x256x128 s3-5, each with 4 and 8
  warps), leaving 50 runnable tiles, 450 runnable kernels per shape.
  15 shapes. Estimates: compile ~0.1 s per kernel with 16 workers, timing
  ~35 ms per (shape, kernel) (do_bench's 30 ms plus the check), ~1 s per
  shape for cuBLAS and the auxiliary kernels.
    full product: compile 648 x 0.1 = 65 s; timing 15 x 648 x 0.035 = 340 s
      (all kernels) or 15 x 450 x 0.035 = 236 s (runnable ones); with the
      rest (~30 s: start, loads, cuBLAS, aux) 330-435 s: over the ~420 s
      this run may take on the H200 once a machine start and the --quick
      smoke test are paid from the same device time.
    dropped: stages 3 for SPLIT_K >= 8 (24 tiles x 4 kernels = 96 kernels,
      80 of them runnable): 552 kernels, compile 552 x 0.1 = 55 s; timing
      15 x 552 x 0.035 = 290 s at most, 15 x 370 x 0.035 = 194 s for the
      runnable ones; total ~280 s expected, ~375 s if nothing were refused.
  --all-stages puts the dropped kernels back; --deadline-s stops starting
  new shapes after S seconds so a run with a wall-clock limit ends cleanly.

Shapes: decode-size M = 16, 32, 64, 128 against (N, K) = (4096, 4096),
(14336, 4096), (4096, 14336), and small M*N with long K: 1024x1024x8192,
512x512x16384, 1536x1536x1536. Held out (split.json): 1024x1024x8192,
32x14336x4096, 64x4096x14336, 128x4096x4096; the rest calibration. Measured
calibration first, then held out.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import multiprocessing
import os
import sys
import time

import torch
import triton
import triton.language as tl

# The machine description, the occupancy query, the checks and the output
# writers are the main harness's: one copy, so both datasets are described
# and checked the same way.
from triton_gemm_harness import (  # noqa: E402  (bench/gpu is the script's directory)
    ClockSampler, JsonlWriter, machine_meta, occupancy, parse_shape, rel_error, shape_name, sm_clock_mhz, smi_snapshot,
    write_json)

# ---------------------------------------------------------------------------
# Shapes (M, N, K), the tile grid, split factors and variants
# ---------------------------------------------------------------------------

DECODE_MS = (16, 32, 64, 128)
DECODE_NK = ((4096, 4096), (14336, 4096), (4096, 14336))
LONG_K = [(1024, 1024, 8192), (512, 512, 16384), (1536, 1536, 1536)]
ALL_SHAPES = [(m, n, k) for (n, k) in DECODE_NK for m in DECODE_MS] + LONG_K
HELD_OUT = [(1024, 1024, 8192), (32, 14336, 4096), (64, 4096, 14336), (128, 4096, 4096)]
CALIBRATION = [s for s in ALL_SHAPES if s not in HELD_OUT]
# Fresh M = 1 decode steps, chosen before measuring, after one_row_a_extra
# was frozen (data/h200-triton-splitk-m1b; run with --all-held-out, one
# --dtype per run).
# Fresh M = 8 decode steps (fp16), chosen before measuring, the model frozen
# (data/h200-triton-splitk-m8b; --all-held-out).
M8B_HELD_OUT = [(8, 4096, 11008), (8, 2048, 8192), (8, 5120, 5120), (8, 1024, 16384)]
# Fresh M = 2 decode steps (fp16), chosen before measuring, after A's
# repeated-row term was extended to M = 2 (data/h200-triton-splitk-m2;
# --all-held-out --variants workspace).
M2_HELD_OUT = [(2, 4096, 4096), (2, 2048, 8192), (2, 4096, 11008), (2, 1024, 16384)]
# Fresh decode steps and small-M*N products, chosen before measuring, after
# the reduction's per-split term (reduce_split_us) was frozen, timed with
# CUDA graphs (data/h200-triton-splitk-g1; --all-held-out --variants
# workspace; one run per M class, and bf16 at M = 1 apart).
G1_HELD_OUT = {
    "m": [(4, 14336, 4096), (4, 4096, 14336), (2, 6144, 4096), (8, 5120, 13824), (12, 4096, 4096),
          (6, 3584, 18944)],
    "1": [(1, 3584, 18944), (1, 18944, 3584), (1, 13824, 5120)],
    "1:bfloat16": [(1, 4096, 14336), (1, 5120, 13824), (1, 2048, 5632)],
    "M": [(16, 5120, 13824), (32, 3584, 18944), (48, 6144, 4096), (64, 2048, 8192)],
}
M1B_HELD_OUT = {
    "float16": [(1, 4096, 11008), (1, 2048, 8192), (1, 1024, 16384), (1, 5120, 5120)],
    "bfloat16": [(1, 4096, 4096), (1, 3072, 8192), (1, 2560, 10240), (1, 8192, 2048)],
}

BLOCK_MS = (64, 128)
BLOCK_NS = (64, 128, 256)
BLOCK_KS = (64, 128)
STAGES = (3, 4, 5)
WARPS = (4, 8)
SPLITS = (1, 2, 4, 8, 16)
# --splits takes any factor from 1 to this (3, 5, 6, 12: data/h200-triton-splitk-any).
MAX_SPLIT = 16
GROUP_M = 8
# Budget rule (see the docstring): no stages-3 tiles for SPLIT_K >= this.
DROP_STAGES3_FROM_SPLIT = 8

# "fused" (MODE 4) reads the sum, waits at a CTA barrier, then zeros it;
# "fused_xchg" (MODE 3) reads and zeros it in one atomic exchange (correct,
# and slower: data/h200-triton-splitk-fused).
VARIANTS = ("none", "atomic", "workspace", "fused", "fused_xchg")
MODE = {"none": 0, "atomic": 1, "workspace": 2, "fused_xchg": 3, "fused": 4}
# The split variants a run measures unless --variants says otherwise.
DEFAULT_SPLIT_VARIANTS = ("atomic", "workspace")

# Smoke test: 2 shapes x 4 tiles (one refused for shared memory), all splits.
QUICK_TILES = ["64x64x128_s4_w4", "64x128x64_s3_w4", "128x128x64_s4_w8", "128x256x128_s3_w8"]
QUICK_SHAPES = [(32, 4096, 4096), (1024, 1024, 8192)]

# do_bench parameters (milliseconds), as in data/h200-triton/.
TRITON_WARMUP_MS, TRITON_REP_MS = 5, 25
CUBLAS_WARMUP_MS, CUBLAS_REP_MS = 10, 50

# Proxy problem for the compile workers: multiples of 16, unit inner strides.
PROXY = (256, 256, 4096)

# Reduction / cast kernel launch parameters (one compile per SPLIT).
RED_BLOCK, RED_WARPS, RED_STAGES = 1024, 4, 1

# Estimates used for the printed plan (seconds).
EST_COMPILE_PER_KERNEL = 0.1
EST_TIMING_PER_ROW = 0.035
EST_PER_SHAPE_EXTRA = 1.0

# Quick mode fails (exit 3) when a check is worse than this.
QUICK_MAX_REL_ERR = 1e-2


# How a timed fn is timed: "graph" (default) captures it once in a CUDA graph
# and times the graph's replays with do_bench (the same flush of the L2 before
# each, one launch call instead of the fn's Python launches); "launch" times
# the fn itself, as every dataset before data/h200-split-timing. That study
# found the Python launches of a ~20 us split GEMM and its reduction fall
# behind the GPU in episodes of a slow host: 1.4-1.6x on whole shapes of
# data/h200-triton-splitk-m2, absent from the graph's replays of the same
# kernels (docs/model.md §6).
TIMING = "graph"


def timed(fn, warmup_ms, rep_ms):
    """Median ms of fn (already run once outside any capture), by TIMING."""
    if TIMING == "launch":
        return triton.testing.do_bench(fn, warmup=warmup_ms, rep=rep_ms, return_mode="median")
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    torch.cuda.synchronize()
    try:
        return triton.testing.do_bench(g.replay, warmup=warmup_ms, rep=rep_ms, return_mode="median")
    finally:
        del g


def tile_key(t):
    return f"{t['BM']}x{t['BN']}x{t['BK']}_s{t['stages']}_w{t['warps']}"


def kernel_key(t, split_k, variant):
    return f"{tile_key(t)}_k{split_k}_{variant}"


def tile_grid():
    grid = []
    for bm in BLOCK_MS:
        for bn in BLOCK_NS:
            for bk in BLOCK_KS:
                for stages in STAGES:
                    for warps in WARPS:
                        t = {"BM": bm, "BN": bn, "BK": bk, "stages": stages, "warps": warps}
                        t["tile"] = tile_key(t)
                        grid.append(t)
    return grid


def kernel_grid(tiles, splits=SPLITS, all_stages=False, split_variants=DEFAULT_SPLIT_VARIANTS):
    """Every (tile, split, variant) kernel, tile-major, in a stable order."""
    out = []
    for t in tiles:
        for s in splits:
            if s >= DROP_STAGES3_FROM_SPLIT and t["stages"] == 3 and not all_stages:
                continue
            for v in (("none",) if s == 1 else split_variants):
                cfg = dict(t)
                cfg.update(split_k=s, variant=v, key=kernel_key(t, s, v))
                out.append(cfg)
    return out


def tile_counters(M, N):
    """The fused variants' int32 counters, one per tile of the smallest tile in the grid, zeroed."""
    return torch.zeros((triton.cdiv(M, min(BLOCK_MS)) * triton.cdiv(N, min(BLOCK_NS)),), device="cuda",
                       dtype=torch.int32)


def fused_dirty(ws32, lock):
    """What a fused launch left behind: nonzero workspace elements or counters (None if nothing)."""
    torch.cuda.synchronize()
    nz_ws = int(torch.count_nonzero(torch.nan_to_num(ws32, nan=1.0)).item())
    nz_lock = int(torch.count_nonzero(lock).item())
    return f"{nz_ws} workspace elements, {nz_lock} counters nonzero" if nz_ws or nz_lock else None


def pipeline_smem_bytes(t):
    """Shared memory of the operand pipeline, as Triton 3.6 reports it for this
    kernel family: stages x (BM*BK + BK*BN) x the operands' element size."""
    return t["stages"] * (t["BM"] * t["BK"] + t["BK"] * t["BN"]) * run_dtype().itemsize


def k_split_info(K, BK, split_k):
    """(elements per slice, slices that hold any K) for a split factor."""
    k_tiles = -(-K // BK)
    per = -(-k_tiles // split_k)
    used = -(-k_tiles // per)
    return per * BK, used


# ---------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------


@triton.jit
def splitk_matmul_kernel(
    a_ptr, b_ptr, c_ptr, w_ptr, lock_ptr,
    M, N, K,
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    stride_ws,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr, SPLIT_K: tl.constexpr, MODE: tl.constexpr,
):
    # MODE 0: C = A.B in fp16 (SPLIT_K must be 1); 1: atomic fp32 add into
    # w[M,N]; 2: fp32 store into w[pid_k, M, N] (stride_ws elements apart);
    # 3: atomic fp32 add into w[M,N], then the tile's last program (counted
    # in lock[pid], int32) writes C and leaves w and lock zero again.
    # w uses C's strides.
    pid = tl.program_id(axis=0)
    pid_k = tl.program_id(axis=1)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)
    tl.assume(pid_k >= 0)
    tl.assume(stride_am > 0)
    tl.assume(stride_ak > 0)
    tl.assume(stride_bn > 0)
    tl.assume(stride_bk > 0)
    tl.assume(stride_cm > 0)
    tl.assume(stride_cn > 0)

    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    # K tiles [k_first, k_last) of this program: all of them for SPLIT_K = 1,
    # else slices of ceil(ceil(K / BLOCK_K) / SPLIT_K) tiles
    # (= ceil(K / (SPLIT_K * BLOCK_K)) tiles); trailing slices may be empty.
    if SPLIT_K == 1:
        k_first = 0
        k_last = tl.cdiv(K, BLOCK_K)
    else:
        k_tiles = tl.cdiv(K, BLOCK_K)
        k_per = tl.cdiv(k_tiles, SPLIT_K)
        k_first = pid_k * k_per
        k_last = tl.minimum(k_first + k_per, k_tiles)
        a_ptrs += k_first * BLOCK_K * stride_ak
        b_ptrs += k_first * BLOCK_K * stride_bk

    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(k_first, k_last):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_c = stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    if MODE == 0:
        c = accumulator.to(c_ptr.dtype.element_ty)
        tl.store(c_ptr + offs_c, c, mask=c_mask)
    elif MODE == 1:
        tl.atomic_add(w_ptr + offs_c, accumulator, mask=c_mask, sem="relaxed")
    elif MODE == 2:
        tl.store(w_ptr + pid_k * stride_ws + offs_c, accumulator, mask=c_mask)
    else:
        tl.atomic_add(w_ptr + offs_c, accumulator, mask=c_mask, sem="relaxed")
        # Every thread's adds are issued before the one release below.
        tl.debug_barrier()
        arrived = tl.atomic_add(lock_ptr + pid, 1, sem="acq_rel", scope="gpu")
        if arrived == SPLIT_K - 1:
            if MODE == 3:
                # Read the sum and zero it in one atomic exchange: no thread can
                # zero an element before another thread of this program read it.
                total = tl.atomic_xchg(w_ptr + offs_c, tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32),
                                       mask=c_mask, sem="relaxed", scope="gpu")
            else:
                # MODE 4: a load, a CTA barrier (without it a thread could zero
                # an element before another thread of this program read it: the
                # first form of this variant did, in 3% of the 64-row, 8-warp
                # kernels), then zeros stored.
                total = tl.load(w_ptr + offs_c, mask=c_mask, other=0.0, cache_modifier=".cg")
                tl.debug_barrier()
                tl.store(w_ptr + offs_c, tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32), mask=c_mask)
            tl.store(c_ptr + offs_c, total.to(c_ptr.dtype.element_ty), mask=c_mask)
            tl.atomic_xchg(lock_ptr + pid, 0, sem="relaxed", scope="gpu")


@triton.jit
def splitk_reduce_kernel(w_ptr, c_ptr, MN, stride_ws, SPLIT: tl.constexpr, BLOCK: tl.constexpr):
    # c[i] = sum over s < SPLIT of w[s * stride_ws + i], in fp32, stored in
    # c's type; SPLIT = 1 is the cast of the atomic variant.
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < MN
    acc = tl.load(w_ptr + offs, mask=mask, other=0.0)
    for s in tl.static_range(1, SPLIT):
        acc += tl.load(w_ptr + s * stride_ws + offs, mask=mask, other=0.0)
    tl.store(c_ptr + offs, acc.to(c_ptr.dtype.element_ty), mask=mask)


def gemm_args(a, b, c, w, lock):
    M, K = a.shape
    _, N = b.shape
    return (a, b, c, w, lock, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
            c.stride(0), c.stride(1), M * N)


def gemm_meta(cfg):
    return dict(BLOCK_M=cfg["BM"], BLOCK_N=cfg["BN"], BLOCK_K=cfg["BK"], GROUP_M=GROUP_M,
                SPLIT_K=cfg["split_k"], MODE=MODE[cfg["variant"]],
                num_warps=cfg["warps"], num_stages=cfg["stages"])


def reduce_meta(split):
    return dict(SPLIT=split, BLOCK=RED_BLOCK, num_warps=RED_WARPS, num_stages=RED_STAGES)


def gemm_grid(M, N, cfg):
    return (triton.cdiv(M, cfg["BM"]) * triton.cdiv(N, cfg["BN"]), cfg["split_k"])


# The run's input type and proxy M, read from the environment so that the
# spawned compile workers see what main() chose (--dtype, the shapes' M class).
def run_dtype_name():
    return os.environ.get("TILEPLAN_SPLITK_DTYPE", "float16")


def run_dtype():
    """The operands' torch type: float8_e4m3 is torch's float8_e4m3fn."""
    name = run_dtype_name()
    return torch.float8_e4m3fn if name == "float8_e4m3" else getattr(torch, name)


def run_out_dtype():
    """C's type: the operands' for 16-bit types, float16 for fp8 (as triton_gemm_harness.py)."""
    return torch.float16 if run_dtype_name() == "float8_e4m3" else run_dtype()


def is_fp8():
    return run_dtype_name() == "float8_e4m3"


def b_kmajor():
    """B stored K-major (B[K,N] a column-major view of an [N,K] tensor): always for fp8 (Hopper's fp8
    wgmma reads B K-major only, and torch._scaled_mm (cuBLAS) requires it), and for a 16-bit type where
    --b-kmajor set TILEPLAN_SPLITK_B_KMAJOR (the nn.Linear layout)."""
    return is_fp8() or os.environ.get("TILEPLAN_SPLITK_B_KMAJOR") == "1"


def operand(rows, cols, dt, transposed=False, random=False):
    """An (rows, cols) operand of type dt, row-major or (transposed) a column-major view; random
    normal values (drawn in fp32, then cast) or uninitialized."""
    shape = (cols, rows) if transposed else (rows, cols)
    if random:
        t = torch.randn(shape, device="cuda", dtype=torch.float32).to(dt)
    else:
        t = torch.empty(shape, device="cuda", dtype=dt)
    return t.t() if transposed else t


def proxy_shape():
    return (int(os.environ.get("TILEPLAN_SPLITK_PROXY_M", PROXY[0])), PROXY[1], PROXY[2])


def m_class(m):
    """What Triton specializes M on: 1, a multiple of 16, or neither."""
    return "1" if m == 1 else "M" if m % 16 == 0 else "m"


# A proxy M of each class (the compiled kernel serves every M of its class).
PROXY_M = {"M": PROXY[0], "1": 1, "m": 8}


def proxy_tensors():
    M, N, K = proxy_shape()
    dt = run_dtype()
    a = operand(M, K, dt)
    b = operand(K, N, dt, transposed=b_kmajor())
    c = torch.empty((M, N), device="cuda", dtype=run_out_dtype())
    w = torch.empty((max(SPLITS), M, N), device="cuda", dtype=torch.float32)
    return a, b, c, w, tile_counters(M, N)


def warm_kernel(task, tensors):
    """Compile (or load from the cache) one task: ("gemm", cfg) or ("aux", split)."""
    kind, item = task
    a, b, c, w, lock = tensors
    if kind == "gemm":
        return splitk_matmul_kernel.warmup(*gemm_args(a, b, c, w, lock), grid=(1,), **gemm_meta(item))
    mn = c.numel()
    return splitk_reduce_kernel.warmup(w, c, mn, mn, grid=(1,), **reduce_meta(item))


def task_key(task):
    kind, item = task
    return item["key"] if kind == "gemm" else f"aux_reduce_k{item}"


# ---------------------------------------------------------------------------
# Compile phase (worker processes)
# ---------------------------------------------------------------------------

_WORKER_TENSORS = []


def _compile_worker(task):
    """Compile one kernel into Triton's on-disk cache; no launch."""
    t0 = time.perf_counter()
    try:
        if not _WORKER_TENSORS:
            _WORKER_TENSORS.append(proxy_tensors())
        warm_kernel(task, _WORKER_TENSORS[0])
        err = None
    except Exception as e:  # reported per kernel, never fatal here
        err = f"{type(e).__name__}: {e}"
    return task_key(task), time.perf_counter() - t0, err


def compile_all(tasks, workers):
    """Compile every task in `workers` spawned processes, largest tiles first."""
    def size(task):
        kind, item = task
        if kind != "gemm":
            return 0
        return item["BM"] * item["BN"] * item["BK"] * item["stages"]
    order = sorted(tasks, key=lambda t: -size(t))
    results = {}
    if workers <= 1:
        for task in order:
            key, secs, err = _compile_worker(task)
            results[key] = (secs, err)
        return results
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        for key, secs, err in pool.map(_compile_worker, order, chunksize=4):
            results[key] = (secs, err)
    return results


# ---------------------------------------------------------------------------
# Driver-granted occupancy (as triton_gemm_harness.py)
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Machine description (as triton_gemm_harness.py)
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Output helpers
# ---------------------------------------------------------------------------


def fmt_ms(x):
    return f"{x:.4f}" if x is not None else "–"


def fmt_ratio(x, y):
    return f"{x / y:.2f}" if x is not None and y else "–"


def summary_tables(summary):
    """Markdown tables for the per-shape summaries (pure Python; used at the end)."""
    lines = ["| shape | split | best unsplit | ms | best split | ms | unsplit/split | best atomic ms | "
             "best workspace ms | best fused ms | cuBLAS ms | best/cuBLAS |",
             "|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for s in summary:
        best = min([x for x in (s["best_none_ms"], s["best_split_ms"]) if x is not None], default=None)
        lines.append(
            f"| {s['shape']} | {s['split']} | {s['best_none_key'] or '–'} | {fmt_ms(s['best_none_ms'])} | "
            f"{s['best_split_key'] or '–'} | {fmt_ms(s['best_split_ms'])} | "
            f"{fmt_ratio(s['best_none_ms'], s['best_split_ms'])} | {fmt_ms(s['best_atomic_ms'])} | "
            f"{fmt_ms(s['best_workspace_ms'])} | {fmt_ms(s.get('best_fused_ms'))} | {fmt_ms(s['cublas_ms'])} | "
            f"{fmt_ratio(best, s['cublas_ms'])} |")
    lines += ["", "Best ms per split factor (any variant; k1 = unsplit):", "",
              "| shape | " + " | ".join(f"k{k}" for k in SPLITS) + " |",
              "|---|" + "---:|" * len(SPLITS)]
    for s in summary:
        per = s["best_per_split"]
        cells = []
        for k in SPLITS:
            e = per.get(str(k))
            cells.append(f"{e['ms']:.4f} ({e['variant'][0]})" if e else "–")
        lines.append(f"| {s['shape']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Selection
# ---------------------------------------------------------------------------


def select_kernels(args):
    tiles = tile_grid()
    if args.tiles:
        wanted = args.tiles.split(",")
        known = {t["tile"] for t in tiles}
        unknown = [k for k in wanted if k not in known]
        if unknown:
            sys.exit(f"error: --tiles: unknown keys {unknown}")
        tiles = [t for t in tiles if t["tile"] in set(wanted)]
    elif args.quick:
        tiles = [t for t in tiles if t["tile"] in set(QUICK_TILES)]
    try:
        splits = tuple(int(s) for s in args.splits.split(",")) if args.splits else SPLITS
    except ValueError:
        sys.exit(f"error: --splits '{args.splits}': a comma list of distinct integers from 1 to {MAX_SPLIT}")
    bad = [s for s in splits if not 1 <= s <= MAX_SPLIT]
    if bad or len(set(splits)) != len(splits):
        sys.exit(f"error: --splits: {bad or 'repeated factors'}: distinct integers from 1 to {MAX_SPLIT}")
    split_variants = (tuple(args.variants.split(",")) if args.variants else
                      VARIANTS[1:] if args.quick else DEFAULT_SPLIT_VARIANTS)
    bad = [v for v in split_variants if v not in VARIANTS or v == "none"]
    if bad or not split_variants:
        sys.exit(f"error: --variants: {bad or 'empty'}: the split variants are {VARIANTS[1:]}")
    return kernel_grid(tiles, splits, args.all_stages, split_variants), splits


def select_shapes(args):
    if args.shapes:
        shapes = [parse_shape(s) for s in args.shapes.split(",")]
    elif args.quick:
        shapes = list(QUICK_SHAPES)
    else:
        shapes = CALIBRATION + HELD_OUT
    for s in shapes:
        if s[1] % 16 or s[2] % 16:
            sys.exit(f"error: shape {shape_name(s)}: N and K must be multiples of 16 (the proxy's specialization)")
    classes = {m_class(s[0]) for s in shapes}
    if len(classes) > 1:
        sys.exit(f"error: the shapes' M fall in several classes ({sorted(classes)}: 1, a multiple of 16, neither); "
                 "one run compiles one class: run once per class")
    return shapes


def plan(n_kernels, n_shapes, n_rows_per_shape=None):
    n_rows = n_kernels if n_rows_per_shape is None else n_rows_per_shape
    compile_s = n_kernels * EST_COMPILE_PER_KERNEL
    timing_s = n_shapes * (n_rows * EST_TIMING_PER_ROW + EST_PER_SHAPE_EXTRA)
    return compile_s, timing_s


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------


def main():
    global TIMING, BLOCK_MS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="output folder (created)")
    ap.add_argument("--shapes", help="comma list of MxNxK, multiples of 16 (default: the 15 shapes of the "
                    "docstring, calibration first)")
    ap.add_argument("--tiles", help="comma list of tile keys BMxBNxBK_sS_wW")
    ap.add_argument("--block-ms", help="comma list of the grid's block_M values, of 16, 32, 64, 128 "
                    f"(default {','.join(map(str, BLOCK_MS))}; below 64 tl.dot takes mma, not wgmma)")
    ap.add_argument("--splits", help=f"comma list of distinct split factors, 1 to {MAX_SPLIT} (default 1,2,4,8,16)")
    ap.add_argument("--variants", help="comma list of the split variants to measure (of atomic, workspace, "
                    f"fused; default {','.join(DEFAULT_SPLIT_VARIANTS)}); SPLIT_K = 1 is always 'none'")
    ap.add_argument("--all-stages", action="store_true",
                    help=f"keep stages-3 tiles for SPLIT_K >= {DROP_STAGES3_FROM_SPLIT} (dropped by default)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke test: 2 shapes x 4 tiles x all splits and variants; exits 3 if a check fails")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="compile processes (default: all CPU cores)")
    ap.add_argument("--deadline-s", type=float, default=0,
                    help="start no new shape after this many seconds (0: none)")
    ap.add_argument("--all-held-out", action="store_true",
                    help="split.json lists every measured shape as held out (a fresh set measured after the "
                    "model's constants were frozen)")
    ap.add_argument("--all-calibration", action="store_true",
                    help="split.json lists every measured shape as calibration (a set to fit on)")
    ap.add_argument("--dtype", default="float16", choices=["float16", "bfloat16", "float8_e4m3"],
                    help="input type of the GEMM (default float16); C is of the same type, float16 for "
                    "float8_e4m3, whose B is stored K-major")
    ap.add_argument("--gemm-alone", action="store_true",
                    help="also time every checked workspace kernel's split GEMM without its reduction (rows of "
                    "variant 'gemm_alone', key KERNEL_gemm): the difference is the reduction's cost after the GEMM")
    ap.add_argument("--timing", default="graph", choices=["graph", "launch"],
                    help="graph: time a CUDA graph of each timed fn (default); launch: the fn's own launches, "
                    "as the datasets before data/h200-split-timing")
    ap.add_argument("--b-kmajor", action="store_true",
                    help="store B K-major in a 16-bit type too (fp8's B is always K-major)")
    ap.add_argument("--seed", type=int, default=20261202)
    ap.add_argument("--verbose", action="store_true", help="one line per row (implied by --quick)")
    args = ap.parse_args()
    args.verbose = args.verbose or args.quick
    TIMING = args.timing
    if args.block_ms:
        try:
            block_ms = tuple(int(v) for v in args.block_ms.split(","))
        except ValueError:
            block_ms = ()
        if not block_ms or any(v not in (16, 32, 64, 128) for v in block_ms) or len(set(block_ms)) != len(block_ms):
            print(f"error: --block-ms '{args.block_ms}': a comma list of distinct values of 16, 32, 64, 128",
                  file=sys.stderr)
            sys.exit(2)
        BLOCK_MS = block_ms

    t_start = time.perf_counter()
    os.makedirs(args.out, exist_ok=True)
    kernels, splits = select_kernels(args)
    shapes = select_shapes(args)
    os.environ["TILEPLAN_SPLITK_DTYPE"] = args.dtype
    if args.b_kmajor:
        os.environ["TILEPLAN_SPLITK_B_KMAJOR"] = "1"
    os.environ["TILEPLAN_SPLITK_PROXY_M"] = str(PROXY_M[m_class(shapes[0][0])])
    dt = run_dtype()
    aux_splits = sorted({1} | {s for s in splits if s > 1})
    est_compile, est_timing = plan(len(kernels) + len(aux_splits), len(shapes), len(kernels))

    if args.all_held_out and args.all_calibration:
        sys.exit("error: --all-held-out and --all-calibration exclude each other")
    calibration, held_out = (([], shapes) if args.all_held_out else (shapes, []) if args.all_calibration
                             else (CALIBRATION, HELD_OUT))

    layouts = "rc" if b_kmajor() else "rr"

    def case_name(shape):  # tileplan validate's case names: MxNxK for float16 rr, MxNxK:dtype:LL otherwise
        return shape_name(shape) if (args.dtype, layouts) == ("float16", "rr") else f"{shape_name(shape)}:{args.dtype}:{layouts}"
    write_json(os.path.join(args.out, "split.json"), {
        "calibration": [case_name(s) for s in calibration],
        "held_out": [case_name(s) for s in held_out],
        "measured": [case_name(s) for s in shapes],
        "shape_format": (f"MxNxK: C[M,N] = A[M,K] . B[K,N], {args.dtype}, A row-major, "
                         + (f"B K-major (column-major), C {str(run_out_dtype())[6:]}" if b_kmajor() else "B row-major")),
        "dtype": args.dtype,
    })

    torch.cuda.init()
    meta = machine_meta()
    meta_path = os.path.join(args.out, "meta.json")
    meta.update({
        "kernel": "Triton tutorial matmul with split-K: A[M,K] . B[K,N] through strides (A row-major, B "
                  "row-major or, for fp8, K-major), fp32 accumulate "
                  "(tl.dot), masked K edge, wrapped M/N edges, masked stores, GROUP_M=8 over the M x N "
                  "tiles; grid (tiles, SPLIT_K), program id axis 1 = K slice of "
                  "ceil(K / (SPLIT_K * BK)) * BK elements",
        "variants": {
            "none": "SPLIT_K = 1, fp16 C stored directly; timed fn = the GEMM",
            "atomic": "ws32[M,N].zero_() (torch), GEMM with tl.atomic_add(sem='relaxed') of fp32 partial "
                      "tiles into ws32, then splitk_reduce_kernel SPLIT=1 (cast to fp16 C); timed fn = all three",
            "workspace": "GEMM storing fp32 partial tiles to wsk[split, M, N], then splitk_reduce_kernel "
                         "SPLIT=SPLIT_K sums them into fp16 C; timed fn = both",
            "fused": "one kernel: tl.atomic_add(sem='relaxed') of fp32 partial tiles into ws32 (kept zero), "
                     "a CTA barrier, an acq_rel atomic on the tile's int32 counter; the tile's last program "
                     "loads the sum (.cg), a CTA barrier, stores zeros into its ws32 tile, stores C and resets "
                     "the counter; timed fn = the GEMM",
            "fused_xchg": "as fused, the sum read and zeroed by one tl.atomic_xchg; timed fn = the GEMM",
        },
        "reduce_kernel": {"BLOCK": RED_BLOCK, "num_warps": RED_WARPS, "num_stages": RED_STAGES},
        "grid": {"BM": BLOCK_MS, "BN": BLOCK_NS, "BK": BLOCK_KS, "stages": STAGES, "warps": WARPS,
                 "split_k": splits, "drop": None if args.all_stages else
                 f"stages 3 for SPLIT_K >= {DROP_STAGES3_FROM_SPLIT}"},
        "proxy_shape": shape_name(proxy_shape()),
        "dtype": args.dtype,
        "timing": ("do_bench of a CUDA graph holding the timed fn (captured once per kernel and shape)"
                   if TIMING == "graph" else "do_bench of the timed fn's own launches"),
        "do_bench": {"triton": {"warmup_ms": TRITON_WARMUP_MS, "rep_ms": TRITON_REP_MS,
                                "return_mode": "median"},
                     "cublas": {"warmup_ms": CUBLAS_WARMUP_MS, "rep_ms": CUBLAS_REP_MS,
                                "return_mode": "median"}},
        "inputs": f"torch.randn in fp32 cast to {args.dtype}"
                  + (" (B drawn as [N, K] and viewed K-major)" if b_kmajor() else "")
                  + ", fresh per shape; torch.manual_seed(seed + shape index)",
        "reference": f"torch.matmul of the operands upcast to fp32 (no tf32), cast to {str(run_out_dtype())[6:]}",
        "check": "C, ws32 and wsk filled with NaN (fused: C with NaN, ws32 and the counters zero, as the kernel "
                 "requires), the timed fn run once, every element of C compared; fused: ws32 and the counters "
                 "must be all zero after the check and after the timing, and C is checked again after the timing",
        "split_variants": sorted({k["variant"] for k in kernels} - {"none"}),
        "cublas": ("torch._scaled_mm with unit scales, float16 out" if is_fp8()
                   else f"torch.matmul ({args.dtype})"),
        "seed": args.seed,
        "gemm_alone": args.gemm_alone,
        "quick": args.quick,
        "n_kernels": len(kernels),
        "plan_estimate_s": {"compile": round(est_compile, 1), "timing_all_kernels": round(est_timing, 1)},
        "shapes_requested": [shape_name(s) for s in shapes],
        "shapes_done": [],
        "per_shape": [],
        "status": "running",
    })
    write_json(meta_path, meta)
    print(f"# {meta['gpu']}, {meta['sm_count']} SMs, L2 {meta['l2_bytes']} B, driver {meta['driver']}, "
          f"torch {meta['torch']}, triton {meta['triton']}", flush=True)
    print(f"# clocks before: {meta['nvidia_smi_before']}", flush=True)
    print(f"# {len(kernels)} kernels ({len({k['tile'] for k in kernels})} tiles x splits {splits} x variants) "
          f"+ {len(aux_splits)} reduce/cast kernels; {len(shapes)} shapes; estimate: compile "
          f"{est_compile:.0f} s, timing <= {est_timing:.0f} s", flush=True)

    # -- compile phase: workers fill the on-disk cache ---------------------------
    triton.runtime.driver.active.get_current_target()
    tasks = [("gemm", k) for k in kernels] + [("aux", s) for s in aux_splits]
    t0 = time.perf_counter()
    compiled = compile_all(tasks, args.workers)
    t_compile = time.perf_counter() - t0
    worst = max(compiled.items(), key=lambda kv: kv[1][0])
    print(f"# compile: {len(compiled)} kernels with {args.workers} workers in {t_compile:.1f} s "
          f"(slowest {worst[0]}: {worst[1][0]:.1f} s)", flush=True)

    # -- load phase: cache hits here; resources and occupancy ---------------------
    t0 = time.perf_counter()
    proxy = proxy_tensors()
    cfg_writer = JsonlWriter(os.path.join(args.out, "configs.jsonl"))
    runnable = []
    slow_loads, occ_disagree, other_errors = [], [], []
    occ_api = None
    aux_info = {}
    for task in [("aux", s) for s in aux_splits] + [("gemm", k) for k in kernels]:
        key = task_key(task)
        tl0 = time.perf_counter()
        err = compiled[key][1]
        row = dict(task[1]) if task[0] == "gemm" else {"key": key, "SPLIT": task[1]}
        if err is None:
            try:
                kernel = warm_kernel(task, proxy)
                kernel._init_handles()
                shared = int(kernel.metadata.shared)
                threads = 32 * (task[1]["warps"] if task[0] == "gemm" else RED_WARPS)
                occ, occ_api, occ_c = occupancy(kernel.function, threads, shared)
                if occ_c is not None and occ_c != occ:
                    occ_disagree.append((key, occ, occ_c))
                row.update(n_regs=int(kernel.n_regs), n_spills=int(kernel.n_spills), shared=shared,
                           occupancy=occ)
                if task[0] == "gemm":
                    runnable.append(task[1])
            except Exception as e:
                err = f"{type(e).__name__}: {e}"
        if err is not None:
            row["error"] = err
            if "OutOfResources" not in err:
                other_errors.append((key, err[:200]))
        load_s = time.perf_counter() - tl0
        if load_s > 0.5:
            slow_loads.append((key, round(load_s, 2)))
        if task[0] == "gemm":
            row["pipeline_smem_bytes"] = pipeline_smem_bytes(task[1])
            cfg_writer.write(row)
        else:
            aux_info[key] = row
        if args.verbose:
            print(f"  {key:<32} compile {compiled[key][0]:5.1f} s  load {load_s * 1e3:6.0f} ms  "
                  + (f"regs {row['n_regs']:3d} spills {row['n_spills']:4d} smem {row['shared']:6d} "
                     f"occ {row['occupancy']}" if "error" not in row else row["error"][:90]), flush=True)
    cfg_writer.close()
    del proxy
    t_load = time.perf_counter() - t0
    aux_ok = all("error" not in r for r in aux_info.values())
    _, est_timing_runnable = plan(0, len(shapes), len(runnable))
    print(f"# load: {t_load:.1f} s; {len(runnable)} runnable of {len(kernels)} kernels; reduce/cast kernels "
          f"{'ok' if aux_ok else 'FAILED'}; occupancy via {occ_api}; loads over 0.5 s: {slow_loads or 'none'}; "
          f"occupancy disagreements: {occ_disagree or 'none'}; errors other than OutOfResources: "
          f"{other_errors or 'none'}", flush=True)
    print(f"# timing estimate for the runnable kernels: {est_timing_runnable:.0f} s "
          f"(elapsed so far {time.perf_counter() - t_start:.0f} s)", flush=True)
    meta.update(compile_s=round(t_compile, 1), compile_workers=args.workers, load_s=round(t_load, 1),
                occupancy_api=occ_api, n_runnable=len(runnable), slow_loads=slow_loads,
                compile_errors_other=other_errors, aux_kernels=aux_info,
                plan_estimate_s={**meta["plan_estimate_s"], "timing_runnable": round(est_timing_runnable, 1)})
    write_json(meta_path, meta)
    if not aux_ok:
        runnable = [k for k in runnable if k["variant"] == "none"]
        print("# reduce/cast kernels failed: timing the unsplit kernels only", flush=True)

    # -- timing phase -------------------------------------------------------------
    t_timing0 = time.perf_counter()
    tim_writer = JsonlWriter(os.path.join(args.out, "timings.jsonl"))
    # The clock, power and clock-event reasons of each timed row (the main
    # harness's sampler: data/h100-profile-power).
    sampler = ClockSampler()
    meta["clock_sampler"] = "NVML every 10 ms during each do_bench" if sampler.ok else "unavailable (no NVML)"
    summary = []
    stopped_early = False
    held_names = {shape_name(s) for s in held_out}
    cal_names = {shape_name(s) for s in calibration}
    all_failures, global_max_rel, global_nan_rows = [], 0.0, 0
    for si, shape in enumerate(shapes):
        M, N, K = shape
        name = shape_name(shape)
        if args.deadline_s and time.perf_counter() - t_start > args.deadline_s:
            stopped_early = True
            print(f"# deadline reached: stopping before {name}", flush=True)
            break
        ts0 = time.perf_counter()
        torch.manual_seed(args.seed + si)
        a = operand(M, K, dt, random=True)
        b = operand(K, N, dt, transposed=b_kmajor(), random=True)
        c = torch.empty((M, N), device="cuda", dtype=run_out_dtype())
        ws32 = torch.empty((M, N), device="cuda", dtype=torch.float32)
        wsk = torch.empty((max(splits), M, N), device="cuda", dtype=torch.float32)
        lock = tile_counters(M, N)
        MN = M * N
        ref32 = torch.matmul(a.float(), b.float())
        ref = ref32.to(run_out_dtype())
        ref_nan = int(torch.isnan(ref).sum().item())
        base = {"M": M, "N": N, "K": K, "dtype": args.dtype}
        if b_kmajor():
            base.update(a_layout="row", b_layout="col")

        # cuBLAS
        cublas_ms, cublas_note, cublas_vs_fp32 = None, None, None
        try:
            if is_fp8():
                one = torch.ones((), device="cuda", dtype=torch.float32)

                def cublas():
                    return torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.float16)
            else:
                def cublas():
                    return torch.matmul(a, b)
            out = cublas()
            torch.cuda.synchronize()
            cublas_vs_fp32 = float(torch.linalg.vector_norm(out.float() - ref32) / torch.linalg.vector_norm(ref32))
            del out
            tb0 = time.monotonic()
            cublas_ms = timed(cublas, CUBLAS_WARMUP_MS, CUBLAS_REP_MS)
            tim_writer.write({**base, "key": "cublas", "ms": cublas_ms, **sampler.window(tb0, time.monotonic())})
        except Exception as e:
            cublas_note = f"{type(e).__name__}: {str(e)[:160]}"
        del ref32

        # The auxiliary kernels alone (what the split variants add to the GEMM).
        rgrid = (triton.cdiv(MN, RED_BLOCK),)
        aux_ms = {}
        if aux_ok:
            aux_fns = [("aux_zero", None, lambda: ws32.zero_())]
            for s in aux_splits:
                k = "aux_cast" if s == 1 else f"aux_reduce_k{s}"
                aux_fns.append((k, s, (lambda s=s: splitk_reduce_kernel[rgrid](
                    ws32 if s == 1 else wsk, c, MN, MN, **reduce_meta(s)))))
            for k, s, fn in aux_fns:
                try:
                    fn()
                    ms = timed(fn, TRITON_WARMUP_MS, TRITON_REP_MS)
                except Exception as e:
                    print(f"  FAIL {name} {k}: {type(e).__name__}: {e}", flush=True)
                    continue
                aux_ms[k] = ms
                tim_writer.write({**base, "key": k, "variant": "aux", "split_k": s, "ms": ms})

        best = {}          # (variant, split) -> (key, ms)
        max_rel, nonzero, nan_rows, failures = 0.0, 0, 0, []
        for cfg in runnable:
            grid = gemm_grid(M, N, cfg)
            margs = gemm_meta(cfg)
            variant, split_k = cfg["variant"], cfg["split_k"]
            if variant in ("none", "fused", "fused_xchg"):
                gargs = gemm_args(a, b, c, ws32, lock)

                def fn():
                    splitk_matmul_kernel[grid](*gargs, **margs)
            elif variant == "atomic":
                gargs = gemm_args(a, b, c, ws32, lock)

                def fn():
                    ws32.zero_()
                    splitk_matmul_kernel[grid](*gargs, **margs)
                    splitk_reduce_kernel[rgrid](ws32, c, MN, MN, **reduce_meta(1))
            else:
                gargs = gemm_args(a, b, c, wsk, lock)
                rmeta = reduce_meta(split_k)

                def fn():
                    splitk_matmul_kernel[grid](*gargs, **margs)
                    splitk_reduce_kernel[rgrid](wsk, c, MN, MN, **rmeta)

            dirty = None
            try:
                c.fill_(float("nan"))
                wsk.fill_(float("nan"))
                if variant.startswith("fused"):
                    ws32.zero_()
                    lock.zero_()
                else:
                    ws32.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                rel, n_nan = rel_error(c, ref)
                if variant.startswith("fused"):
                    dirty = fused_dirty(ws32, lock)
                tb0 = time.monotonic()
                ms = timed(fn, TRITON_WARMUP_MS, TRITON_REP_MS)
                clocks = sampler.window(tb0, time.monotonic())
                if variant.startswith("fused"):
                    # After hundreds of launches: the sums still right, nothing left behind.
                    c.fill_(float("nan"))
                    fn()
                    torch.cuda.synchronize()
                    rel2, n_nan2 = rel_error(c, ref)
                    rel, n_nan = max(rel, rel2), max(n_nan, n_nan2)
                    dirty = dirty or fused_dirty(ws32, lock)
            except Exception as e:
                failures.append((cfg["key"], f"{type(e).__name__}: {e}"))
                print(f"  FAIL {name} {cfg['key']}: {type(e).__name__}: {e}", flush=True)
                continue
            k_slice, k_used = k_split_info(K, cfg["BK"], split_k)
            row = {**base, "key": cfg["key"], "tile": cfg["tile"], "split_k": split_k, "variant": variant,
                   "ms": ms, "n_programs": grid[0] * grid[1], "k_slice": k_slice, "splits_used": k_used, **clocks}
            if dirty:
                row["dirty"] = dirty
                failures.append((cfg["key"], f"left behind: {dirty}"))
            if n_nan:
                row["rel_err"] = None
                row["n_nan"] = n_nan
                nan_rows += 1
            else:
                row["rel_err"] = rel
                max_rel = max(max_rel, rel)
                nonzero += rel != 0.0
            tim_writer.write(row)
            if args.gemm_alone and variant == "workspace" and not n_nan and not dirty:
                # The split GEMM alone, timed as the whole was (its graph without the
                # reduction): the whole less this is what the reduction adds after it.
                def gemm_only():
                    splitk_matmul_kernel[grid](*gargs, **margs)
                gemm_only()
                tim_writer.write({**base, "key": cfg["key"] + "_gemm", "tile": cfg["tile"], "split_k": split_k,
                                  "variant": "gemm_alone", "ms": timed(gemm_only, TRITON_WARMUP_MS, TRITON_REP_MS)})
            if args.verbose:
                print(f"  {name} {cfg['key']:<32} {ms:.4f} ms  rel_err {rel:.2e}  NaN {n_nan}", flush=True)
            if n_nan == 0 and not dirty and not (rel > QUICK_MAX_REL_ERR):
                cur = best.get((variant, split_k))
                if cur is None or ms < cur[1]:
                    best[(variant, split_k)] = (cfg["key"], ms)
        del a, b, c, ws32, wsk, lock, ref

        def best_of(pred):
            cands = [(v, s, key, ms) for (v, s), (key, ms) in best.items() if pred(v, s)]
            return min(cands, key=lambda x: x[3]) if cands else None

        b_none = best_of(lambda v, s: v == "none")
        b_split = best_of(lambda v, s: v != "none")
        b_atomic = best_of(lambda v, s: v == "atomic")
        b_ws = best_of(lambda v, s: v == "workspace")
        b_fused = best_of(lambda v, s: v.startswith("fused"))
        per_split = {}
        for s in splits:
            e = best_of(lambda v, s_, s=s: s_ == s)
            if e:
                per_split[str(s)] = {"variant": e[0], "key": e[2], "ms": e[3]}
        shape_s = time.perf_counter() - ts0
        clock = sm_clock_mhz()
        info = {"shape": name,
                "split": "calibration" if name in cal_names else "held_out" if name in held_names else "other",
                "best_none_key": b_none[2] if b_none else None, "best_none_ms": b_none[3] if b_none else None,
                "best_split_key": b_split[2] if b_split else None,
                "best_split_ms": b_split[3] if b_split else None,
                "best_split_variant": b_split[0] if b_split else None,
                "best_split_k": b_split[1] if b_split else None,
                "best_atomic_key": b_atomic[2] if b_atomic else None,
                "best_atomic_ms": b_atomic[3] if b_atomic else None,
                "best_workspace_key": b_ws[2] if b_ws else None,
                "best_workspace_ms": b_ws[3] if b_ws else None,
                "best_fused_key": b_fused[2] if b_fused else None,
                "best_fused_ms": b_fused[3] if b_fused else None,
                "best_per_split": per_split, "aux_ms": aux_ms,
                "cublas_ms": cublas_ms, "cublas_note": cublas_note, "cublas_vs_fp32_rel_err": cublas_vs_fp32,
                "ref_nan": ref_nan, "max_rel_err": max_rel, "n_rel_err_nonzero": int(nonzero),
                "n_nan_rows": nan_rows, "n_failed": len(failures), "seconds": round(shape_s, 1),
                "sm_clock_after": clock}
        summary.append(info)
        all_failures += failures
        global_max_rel = max(global_max_rel, max_rel)
        global_nan_rows += nan_rows
        meta["shapes_done"].append(name)
        meta["per_shape"].append(info)
        meta["elapsed_s"] = round(time.perf_counter() - t_start, 1)
        write_json(meta_path, meta)
        ratio = fmt_ratio(info["best_none_ms"], info["best_split_ms"])
        print(f"# {name:<16} unsplit {info['best_none_key']} {fmt_ms(info['best_none_ms'])} ms | split "
              f"{info['best_split_key']} {fmt_ms(info['best_split_ms'])} ms (x{ratio}) | atomic "
              f"{fmt_ms(info['best_atomic_ms'])} workspace {fmt_ms(info['best_workspace_ms'])} fused "
              f"{fmt_ms(info['best_fused_ms'])} | cuBLAS "
              f"{fmt_ms(cublas_ms)}{' (' + cublas_note + ')' if cublas_note else ''} | max rel_err "
              f"{max_rel:.2e} ({nonzero} nonzero, {nan_rows} NaN, {len(failures)} failed) | {shape_s:.1f} s, "
              f"SM clock {clock}, elapsed {time.perf_counter() - t_start:.0f} s", flush=True)
    tim_writer.close()
    sampler.close()
    t_timing = time.perf_counter() - t_timing0

    meta.update(timing_s=round(t_timing, 1), total_s=round(time.perf_counter() - t_start, 1),
                nvidia_smi_after=smi_snapshot(), max_rel_err=global_max_rel, n_nan_rows=global_nan_rows,
                n_failed=len(all_failures), failures=all_failures[:50],
                status="stopped at deadline" if stopped_early else "complete")
    write_json(meta_path, meta)

    print()
    print(summary_tables(summary))
    print(f"\n# elapsed: compile {t_compile:.1f} s, load {t_load:.1f} s, timing {t_timing:.1f} s, "
          f"total {time.perf_counter() - t_start:.1f} s; status {meta['status']}")
    print(f"# clocks after: {meta['nvidia_smi_after']}")

    if args.quick:
        problems = []
        if other_errors:
            problems.append(f"compile/load errors other than OutOfResources: {other_errors}")
        if not aux_ok:
            problems.append("reduce/cast kernels failed")
        if all_failures:
            problems.append(f"{len(all_failures)} failed launches")
        if global_nan_rows:
            problems.append(f"{global_nan_rows} rows with NaN")
        if global_max_rel > QUICK_MAX_REL_ERR:
            problems.append(f"max rel_err {global_max_rel:.2e} > {QUICK_MAX_REL_ERR}")
        variants_seen = {k["variant"] for k in runnable}
        if variants_seen != {k["variant"] for k in kernels}:
            problems.append(f"variants runnable: {sorted(variants_seen)}")
        if problems:
            print("# QUICK CHECK FAILED: " + "; ".join(problems), flush=True)
            sys.exit(3)
        print("# quick check passed", flush=True)


if __name__ == "__main__":
    main()
