#!/usr/bin/env python3
"""One-shot check of tileplan.triton.prune inside a real @triton.autotune, on one GPU.

Run it against the *installed* package (`python3 -m pip install --no-build-isolation .`,
then from a directory other than the repository's python/ folder):

    cd /tmp && python3 /path/to/tileplan/bench/gpu/check_triton_hook.py

The kernel is the Triton-tutorial matmul of bench/gpu/triton_gemm_harness.py
(fp16 A[M,K] and B[K,N] row-major, fp32 accumulation, fp16 C). Six configs of
the harness's grid go to @triton.autotune with
prune_configs_by=tileplan.triton.prune(top_k=2); the pruner is wrapped to record
what it kept (and, with a second pruner of top_k=0, the full ranking). For each
shape the script prints the kept configs, Triton's best config and timings, the
tuning wall time, and the output's relative error against torch.matmul. It also
prints tileplan.plan(2048, 2048, 2048)'s first pick. Exit status 1 on any
failure: a pruner warning (problem unreadable, configs unmapped), a kept list
that is not exactly top_k long, a best config outside it, a NaN or an error
above 1e-2.
"""

import sys
import time
import traceback
import warnings

import torch
import triton
import triton_gemm_harness

import tileplan
import tileplan.triton

TOP_K = 2
SHAPES = [(2048, 2048, 2048), (1000, 4096, 1000)]
MAX_REL_ERR = 1e-2

# (BLOCK_M, BLOCK_N, BLOCK_K, num_stages, num_warps), all from the harness's grid.
CONFIG_GRID = [
    (128, 256, 64, 4, 8),
    (64, 256, 64, 3, 4),
    (128, 128, 64, 4, 4),
    (256, 128, 64, 3, 8),
    (64, 128, 128, 4, 4),
    (64, 64, 32, 2, 4),
]
CONFIGS = [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, num_stages=st, num_warps=w)
           for bm, bn, bk, st, w in CONFIG_GRID]


def name(config):
    k = config.kwargs
    return f"{k['BLOCK_M']}x{k['BLOCK_N']}x{k['BLOCK_K']}_s{config.num_stages}_w{config.num_warps}"


# The pruner under test, wrapped so that each call's result is recorded.
ARG_NAMES = dict(a="a_ptr", b="b_ptr", c="c_ptr")
_pruner = tileplan.triton.prune(top_k=TOP_K, **ARG_NAMES)["early_config_prune"]
_ranking = tileplan.triton.prune(top_k=0, **ARG_NAMES)["early_config_prune"]
PRUNE_CALLS = []  # (M, N, K, kept names, full ranking names)


def recording_prune(configs, nargs, **kwargs):
    kept = _pruner(configs, nargs, **kwargs)
    ranked = _ranking(configs, nargs, **kwargs)
    PRUNE_CALLS.append((nargs.get("M"), nargs.get("N"), nargs.get("K"), [name(c) for c in kept],
                        [name(c) for c in ranked], list(kept)))
    return kept


# The harness's kernel (bench/gpu is this script's directory), under a real
# autotuner whose configurations tileplan prunes.
matmul_kernel = triton.autotune(configs=CONFIGS, key=["M", "N", "K"],
                                prune_configs_by={"early_config_prune": recording_prune})(
    triton_gemm_harness.matmul_kernel)


def matmul(a, b, c):
    M, K = a.shape
    _, N = b.shape

    def grid(meta):
        return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)

    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1))


def check_shape(M, N, K, failures):
    torch.manual_seed(M * 7 + N * 3 + K)
    a = torch.randn((M, K), device="cuda", dtype=torch.float16)
    b = torch.randn((K, N), device="cuda", dtype=torch.float16)
    c = torch.empty((M, N), device="cuda", dtype=torch.float16)
    calls_before = len(PRUNE_CALLS)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        matmul(a, b, c)  # first launch on this key: prune, compile, benchmark, run
        torch.cuda.synchronize()
        tune_s = time.perf_counter() - t0
    for w in caught:
        print(f"  warning: {w.category.__name__}: {w.message}")
        if "tileplan" in str(w.message):
            failures.append(f"{M}x{N}x{K}: tileplan warning: {w.message}")

    print(f"== {M}x{N}x{K} fp16")
    print(f"  tuning wall time (prune + compile + benchmark + run): {tune_s:.2f} s;"
          f" autotuner bench_time {getattr(matmul_kernel, 'bench_time', float('nan')):.2f} s")
    calls = PRUNE_CALLS[calls_before:]
    if len(calls) != 1:
        failures.append(f"{M}x{N}x{K}: the pruner was called {len(calls)} times, not once")
        kept_configs = []
    else:
        m, n, k, kept, ranked, kept_configs = calls[0]
        print(f"  pruner saw M,N,K = {m},{n},{k}")
        print(f"  ranking of all {len(ranked)}: {', '.join(ranked)}")
        print(f"  kept (top_k={TOP_K}): {', '.join(kept)}")
        if (m, n, k) != (M, N, K):
            failures.append(f"{M}x{N}x{K}: the pruner saw {m}x{n}x{k}")
        if len(kept) != TOP_K:
            failures.append(f"{M}x{N}x{K}: {len(kept)} configs kept, not {TOP_K}")
    best = matmul_kernel.best_config
    print(f"  best_config: {name(best)}  ({best})")
    timings = getattr(matmul_kernel, "configs_timings", None) or {}
    for cfg, t in timings.items():
        med = t[0] if isinstance(t, (list, tuple)) else t
        tflops = 2.0 * M * N * K / (med * 1e-3) / 1e12
        print(f"  benchmarked {name(cfg)}: {med * 1e3:.1f} us median ({tflops:.0f} TFLOP/s); quantiles {t}")
    if kept_configs and all(best is not cfg for cfg in kept_configs):
        failures.append(f"{M}x{N}x{K}: best config {name(best)} is not one of the kept ones")
    if kept_configs and set(map(id, timings)) != set(map(id, kept_configs)):
        failures.append(f"{M}x{N}x{K}: the autotuner benchmarked {[name(x) for x in timings]}, "
                        f"not the kept {[name(x) for x in kept_configs]}")

    # Correctness: poison C, launch again (cached config), compare with torch.matmul.
    c.fill_(float("nan"))
    matmul(a, b, c)
    ref = torch.matmul(a, b).float()
    out = c.float()
    nans = int(torch.isnan(out).sum().item())
    rel = ((out - ref).norm() / ref.norm()).item()
    print(f"  check vs torch.matmul: rel_err {rel:.3e}, NaNs {nans}")
    if nans or not rel <= MAX_REL_ERR:
        failures.append(f"{M}x{N}x{K}: rel_err {rel:.3e}, NaNs {nans}")


def main():
    failures = []
    print(f"tileplan {tileplan.__version__} from {tileplan.__file__}")
    print(f"torch {torch.__version__}, triton {triton.__version__}, GPU {torch.cuda.get_device_name(0)}")
    if "/python/tileplan" in tileplan.__file__:
        failures.append(f"tileplan imported from the source tree ({tileplan.__file__}), not the installed package")
    pick = tileplan.plan(2048, 2048, 2048)[0]
    print(f"tileplan.plan(2048, 2048, 2048)[0]: {pick}")
    print(f"configs given to @triton.autotune: {', '.join(name(c) for c in CONFIGS)}")
    for M, N, K in SHAPES:
        try:
            check_shape(M, N, K, failures)
        except Exception:
            traceback.print_exc()
            failures.append(f"{M}x{N}x{K}: exception")
    if failures:
        print("FAILED:")
        for f in failures:
            print(f"  {f}")
        return 1
    print("OK: prune hook ran inside @triton.autotune for every shape")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit:
        raise
    except BaseException:
        traceback.print_exc()
        sys.exit(1)
