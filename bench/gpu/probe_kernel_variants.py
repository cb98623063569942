#!/usr/bin/env python3
"""Which way of writing the tutorial matmul reproduces data/h200-triton/?

The reference dataset gives, per configuration, the registers and spills that
Triton 3.6 compiled, and timings on 4096^3. Small differences in how the kernel
is written (tl.assume hints, wrap-around vs masked edges, the tl.dot form, the
K-loop form) change those numbers. This script writes each combination of those
four choices into a module, compiles every variant for a spread of
configurations (in parallel worker processes), loads them, compares registers and
spills with the reference configs.jsonl, and times each on 4096x4096x4096
against the reference timings.jsonl.

    python3 probe_kernel_variants.py --ref DIR_WITH_REFERENCE_JSONL [--probe 1|2]

Run from a writable folder (it writes kernel_variants_gen.py there). Results of
both probes on 2026-11-29: data/h200-triton-v2/kernel_variant_probe.txt.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib
import itertools
import json
import multiprocessing
import os
import statistics
import sys
import time

import torch
import triton

MODULE = "kernel_variants_gen"

HEADER = "import triton\nimport triton.language as tl\n\n"

TEMPLATE = '''
@triton.jit
def {name}(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
{pid_lines}
{assume}
{offsets}
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
{loop}
        a = tl.load(a_ptrs, mask={mask_a}, other=0.0)
        b = tl.load(b_ptrs, mask={mask_b}, other=0.0)
{dot}
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = accumulator.to(tl.float16)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)
'''

ASSUME = "\n".join("    tl.assume(%s)" % c for c in (
    "pid_m >= 0", "pid_n >= 0", "stride_am > 0", "stride_ak > 0", "stride_bn > 0", "stride_bk > 0",
    "stride_cm > 0", "stride_cn > 0"))


def variant_source(name, assume, edge, dot, kloop, pid="new", hints=False):
    if pid == "new":  # tutorial since Triton 3.0
        pid_lines = ("    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)\n"
                     "    pid_n = (pid % num_pid_in_group) // group_size_m")
    else:  # tutorial of Triton 2.x
        pid_lines = ("    pid_m = first_pid_m + (pid % group_size_m)\n"
                     "    pid_n = (pid % num_pid_in_group) // group_size_m")
    if edge == "mod":
        offsets = ("    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M\n"
                   "    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N")
        if hints:
            offsets += ("\n    offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BLOCK_M), BLOCK_M)"
                        "\n    offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BLOCK_N), BLOCK_N)")
    else:
        offsets = ("    offs_am = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)\n"
                   "    offs_bn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)")
    if kloop == "rel":
        loop = "    for k in range(0, tl.cdiv(K, BLOCK_K)):"
        ka, kb = "offs_k[None, :] < K - k * BLOCK_K", "offs_k[:, None] < K - k * BLOCK_K"
    else:
        loop = "    for k in range(0, K, BLOCK_K):"
        ka, kb = "(k + offs_k[None, :]) < K", "(k + offs_k[:, None]) < K"
    if edge == "mask":
        ka, kb = f"(offs_am[:, None] < M) & ({ka})", f"({kb}) & (offs_bn[None, :] < N)"
    dot_line = ("        accumulator = tl.dot(a, b, accumulator)" if dot == "acc"
                else "        accumulator += tl.dot(a, b)")
    return TEMPLATE.format(name=name, pid_lines=pid_lines, assume=ASSUME if assume else "", offsets=offsets,
                           loop=loop,
                           mask_a=ka, mask_b=kb, dot=dot_line)


# Probe 1: the 16 combinations of assume x edge x dot form x K-loop form.
PROBE_1 = [dict(assume=a, edge=e, dot=d, kloop=k, pid="new", hints=False)
           for a, e, d, k in itertools.product((True, False), ("mod", "mask"), ("acc", "plus"), ("rel", "abs"))]
# Probe 2: the Triton 2.x program mapping and ops/matmul-style contiguity hints.
PROBE_2 = [dict(assume=a, edge="mod", dot="acc", kloop="rel", pid=p, hints=h)
           for a, p, h in itertools.product((True, False), ("new", "old"), (False, True))]
PROBE_2 += [dict(assume=False, edge="mask", dot=d, kloop="rel", pid="old", hints=False) for d in ("acc", "plus")]
VARIANTS = PROBE_2


def variant_name(v):
    return (f"mm_{'assume' if v['assume'] else 'noassume'}_{v['edge']}_{v['dot']}_{v['kloop']}"
            f"_{v.get('pid', 'new')}pid{'_hints' if v.get('hints') else ''}")


def write_module(path):
    with open(path, "w") as f:
        f.write(HEADER)
        for v in VARIANTS:
            f.write(variant_source(variant_name(v), **v))


def launch_args(a, b, c):
    M, K = a.shape
    N = b.shape[1]
    return (a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))


def meta(cfg):
    return dict(BLOCK_M=cfg["BM"], BLOCK_N=cfg["BN"], BLOCK_K=cfg["BK"], GROUP_M=8,
                num_warps=cfg["warps"], num_stages=cfg["stages"])


_T = None


def _compile(job):
    global _T
    vname, cfg = job
    sys.path.insert(0, os.getcwd())
    mod = importlib.import_module(MODULE)
    if _T is None:
        _T = [torch.empty((256, 256), device="cuda", dtype=torch.float16) for _ in range(3)]
    try:
        getattr(mod, vname).warmup(*launch_args(*_T), grid=(1,), **meta(cfg))
        return None
    except Exception as e:
        return f"{type(e).__name__}: {e}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref", required=True)
    ap.add_argument("--stride", type=int, default=10, help="every n-th runnable reference config")
    ap.add_argument("--probe", type=int, choices=(1, 2), default=2, help="which variant set")
    args = ap.parse_args()
    global VARIANTS
    VARIANTS = PROBE_1 if args.probe == 1 else PROBE_2
    ref_cfg = [json.loads(l) for l in open(os.path.join(args.ref, "configs.jsonl"))]
    ref_ms = {r["key"]: r["ms"] for r in map(json.loads, open(os.path.join(args.ref, "timings.jsonl")))
              if (r["M"], r["N"], r["K"]) == (4096, 4096, 4096)}
    configs = [c for c in ref_cfg if "error" not in c][::args.stride]
    write_module(os.path.join(os.getcwd(), MODULE + ".py"))
    sys.path.insert(0, os.getcwd())
    mod = importlib.import_module(MODULE)
    triton.runtime.driver.active.get_current_target()
    jobs = [(variant_name(v), c) for v in VARIANTS for c in configs]
    t0 = time.perf_counter()
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=os.cpu_count(), mp_context=ctx) as pool:
        errs = list(pool.map(_compile, jobs))
    print(f"# compiled {len(jobs)} in {time.perf_counter() - t0:.1f} s; errors: "
          f"{[j[0] + ' ' + j[1]['key'] + ' ' + e[:60] for j, e in zip(jobs, errs) if e]}", flush=True)

    torch.manual_seed(0)
    M = N = K = 4096
    a = torch.randn((M, K), device="cuda", dtype=torch.float16)
    b = torch.randn((K, N), device="cuda", dtype=torch.float16)
    ref = torch.matmul(a, b)
    c = torch.empty((M, N), device="cuda", dtype=torch.float16)
    w = [torch.empty((256, 256), device="cuda", dtype=torch.float16) for _ in range(3)]
    print("| variant | regs equal | regs mean |diff| | spills equal | time ratio median | time ratio spread | max err |")
    print("|---|---|---|---|---|---|---|")
    for v in VARIANTS:
        fn = getattr(mod, variant_name(v))
        req, rdiff, seq, ratios, errs, detail = 0, [], 0, [], 0.0, []
        for cfg in configs:
            k = fn.warmup(*launch_args(*w), grid=(1,), **meta(cfg))
            k._init_handles()
            req += k.n_regs == cfg["n_regs"]
            rdiff.append(abs(k.n_regs - cfg["n_regs"]))
            seq += k.n_spills == cfg["n_spills"]
            detail.append(f"{cfg['key']}:{k.n_regs}/{cfg['n_regs']}")
            grid = (triton.cdiv(M, cfg["BM"]) * triton.cdiv(N, cfg["BN"]),)
            run = lambda: fn[grid](*launch_args(a, b, c), **meta(cfg))
            c.fill_(float("nan"))
            run()
            errs = max(errs, float((c.float() - ref.float()).norm() / ref.float().norm()))
            ms = triton.testing.do_bench(run, warmup=5, rep=25, return_mode="median")
            ratios.append(ms / ref_ms[cfg["key"]])
        print(f"| {variant_name(v)} | {req}/{len(configs)} | {statistics.mean(rdiff):.1f} | {seq}/{len(configs)} | "
              f"{statistics.median(ratios):.3f} | {min(ratios):.2f}-{max(ratios):.2f} | {errs:.1e} |", flush=True)
        print("   regs (ours/ref): " + " ".join(detail), flush=True)


if __name__ == "__main__":
    main()
