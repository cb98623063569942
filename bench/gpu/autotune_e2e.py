#!/usr/bin/env python3
"""End to end on one GPU: Triton's autotuner with and without tileplan.

NOT RUN YET. Written without a GPU; nothing here has been executed. Expect to
fix it on its first run on the H200, and record what it prints before quoting
any figure.

For each shape, the Triton-tutorial fp16 GEMM of triton_gemm_harness.py
(same kernel, same 216-configuration grid) is launched three ways, each in a
fresh process with its own empty Triton cache, so each pays the compiles it
causes, as a user's first launch does:

  full        @triton.autotune(configs=GRID, key=["M", "N", "K"])
  prune       the same, prune_configs_by=tileplan.triton.prune(top_k=TOP_K)
  heuristics  @triton.heuristics(tileplan.triton.heuristics()): no autotuning

Per (shape, variant) it records the wall time of the first launch (compiles
and benchmarks included), the configuration chosen, that configuration's
kernel time (triton.testing.do_bench, median) and the output checked against
torch.matmul (random normal inputs, never zeros). The summary gives, per shape,
the first-launch time of prune and heuristics against full, and the chosen
kernel's time over full's choice (the regret of pruning).

    python3 bench/gpu/autotune_e2e.py --out OUT.jsonl [--shapes 4096x4096x4096,...] [--top-k 3]

Needs torch, triton, and the tileplan package (PYTHONPATH=build/release/python).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
SHAPES = ["4096x4096x4096", "128x4096x4096", "1024x14336x4096", "8192x2048x2048", "512x1024x16384",
          "3072x3072x3072"]
VARIANTS = ["full", "prune", "heuristics"]


def measure(shape, variant, top_k):
    """One (shape, variant) in this process: returns the record."""
    import torch
    import triton

    import tileplan.triton
    sys.path.insert(0, str(HERE))
    from triton_gemm_harness import GROUP_M, config_grid, kernel_args, matmul_kernel

    m, n, k = (int(x) for x in shape.split("x"))
    grid_configs = [triton.Config({"BLOCK_M": c["BM"], "BLOCK_N": c["BN"], "BLOCK_K": c["BK"], "GROUP_M": GROUP_M},
                                  num_warps=c["warps"], num_stages=c["stages"]) for c in config_grid()]
    if variant == "full":
        kernel = triton.autotune(configs=grid_configs, key=["M", "N", "K"])(matmul_kernel)
    elif variant == "prune":
        kernel = triton.autotune(configs=grid_configs, key=["M", "N", "K"],
                                 prune_configs_by=tileplan.triton.prune(top_k=top_k))(matmul_kernel)
    else:
        values = tileplan.triton.heuristics()
        kernel = triton.heuristics(values)(matmul_kernel)

    torch.manual_seed(0)
    a = torch.randn((m, k), device="cuda", dtype=torch.float16)
    b = torch.randn((k, n), device="cuda", dtype=torch.float16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    args = kernel_args(a, b, c)

    def launch_grid(meta):
        return (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]),)

    torch.cuda.synchronize()
    start = time.perf_counter()
    kernel[launch_grid](*args)
    torch.cuda.synchronize()
    first_launch_s = time.perf_counter() - start

    if variant == "heuristics":
        named = dict(zip(matmul_kernel.arg_names, args))
        chosen = {key: f(named) for key, f in values.items()}
    else:
        best = kernel.best_config
        chosen = dict(best.kwargs, num_warps=best.num_warps, num_stages=best.num_stages)

    c.fill_(float("nan"))
    kernel[launch_grid](*args)
    ref = torch.matmul(a.float(), b.float())
    rel_err = ((c.float() - ref).norm() / ref.norm()).item()
    n_nan = int(torch.isnan(c).sum().item())

    def chosen_kernel():
        matmul_kernel[launch_grid](*args, **chosen)

    ms = triton.testing.do_bench(chosen_kernel, warmup=10, rep=50, return_mode="median")
    return {"shape": shape, "variant": variant, "top_k": top_k, "first_launch_s": first_launch_s, "chosen": chosen,
            "ms": ms, "rel_err": rel_err, "n_nan": n_nan, "gpu": torch.cuda.get_device_name(),
            "triton": triton.__version__, "torch": torch.__version__}


def run_isolated(shape, variant, top_k):
    """measure() in a child process with an empty Triton cache of its own."""
    with tempfile.TemporaryDirectory(prefix="tileplan-e2e-") as cache:
        env = dict(os.environ, TRITON_CACHE_DIR=cache)
        p = subprocess.run([sys.executable, __file__, "--child", shape, variant, str(top_k)], env=env,
                           capture_output=True, text=True)
    if p.returncode != 0:
        return {"shape": shape, "variant": variant, "error": p.stderr[-2000:]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def summarize(rows):
    by = {(r["shape"], r["variant"]): r for r in rows if "error" not in r}
    print(f"{'shape':<18} {'variant':<11} {'first launch s':>14} {'x full':>7} {'kernel ms':>10} {'regret':>7}  chosen")
    for shape in dict.fromkeys(r["shape"] for r in rows):
        full = by.get((shape, "full"))
        for variant in VARIANTS:
            r = by.get((shape, variant))
            if r is None:
                print(f"{shape:<18} {variant:<11} failed")
                continue
            speedup = f"{full['first_launch_s'] / r['first_launch_s']:.1f}" if full else "-"
            regret = f"{r['ms'] / full['ms']:.3f}" if full else "-"
            print(f"{shape:<18} {variant:<11} {r['first_launch_s']:>14.2f} {speedup:>7} {r['ms']:>10.4f} {regret:>7}  "
                  f"{r['chosen']}" + ("" if r["n_nan"] == 0 and r["rel_err"] < 1e-2 else "  CHECK FAILED"))


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        print(json.dumps(measure(sys.argv[2], sys.argv[3], int(sys.argv[4]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="JSON Lines, one row per (shape, variant), appended as measured")
    parser.add_argument("--shapes", default=",".join(SHAPES), help="comma list of MxNxK")
    parser.add_argument("--top-k", type=int, default=3)
    args = parser.parse_args()
    rows = []
    with open(args.out, "a") as out:
        for shape in args.shapes.split(","):
            for variant in VARIANTS:
                row = run_isolated(shape, variant, args.top_k)
                rows.append(row)
                out.write(json.dumps(row) + "\n")
                out.flush()
                if "error" in row:
                    print(f"{shape} {variant}: failed: {row['error'].strip().splitlines()[-1:]}", flush=True)
                else:
                    print(f"{shape} {variant}: {row['first_launch_s']:.1f} s first launch, {row['ms']:.4f} ms",
                          flush=True)
    summarize(rows)


if __name__ == "__main__":
    main()
