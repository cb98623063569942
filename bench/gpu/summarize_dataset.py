#!/usr/bin/env python3
"""Summarize a dataset written by triton_gemm_harness.py, optionally against another.

    python3 bench/gpu/summarize_dataset.py data/h200-triton-v2 [--ref data/h200-triton]

Prints Markdown: the best configuration per shape with cuBLAS beside it, the
check results, and, with --ref, how registers, spills, shared memory, occupancy
and timings of the same keys compare. Standard library only.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics


def load_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def spearman(a, b):
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0] * len(v)
        for pos, i in enumerate(order):
            r[i] = pos
        return r
    ra, rb, n = ranks(a), ranks(b), len(a)
    return 1 - 6 * sum((x - y) ** 2 for x, y in zip(ra, rb)) / (n * (n * n - 1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dataset")
    ap.add_argument("--ref", help="another dataset in the same format to compare with")
    args = ap.parse_args()

    configs = {r["key"]: r for r in load_jsonl(os.path.join(args.dataset, "configs.jsonl"))}
    rows = load_jsonl(os.path.join(args.dataset, "timings.jsonl"))
    split = {}
    split_path = os.path.join(args.dataset, "split.json")
    if os.path.exists(split_path):
        with open(split_path) as f:
            s = json.load(f)
        split = {name: part for part in ("calibration", "held_out") for name in s.get(part, [])}

    ok = [k for k, c in configs.items() if "error" not in c]
    print(f"{len(configs)} configurations: {len(ok)} compiled, {len(configs) - len(ok)} refused; "
          f"{sum(configs[k]['n_spills'] > 0 for k in ok)} spill")

    by_shape = collections.OrderedDict()
    for r in rows:
        by_shape.setdefault((r["M"], r["N"], r["K"]), {})[r["key"]] = r

    print("\n| shape (MxNxK) | split | best config | best ms | TFLOP/s | cuBLAS ms | best / cuBLAS | "
          "configs faster than cuBLAS | max rel_err |")
    print("|---|---|---|---|---|---|---|---|---|")
    wins = collections.Counter()
    for (M, N, K), d in by_shape.items():
        cfg_rows = [r for k, r in d.items() if k != "cublas"]
        valid = [r for r in cfg_rows if r.get("rel_err") is not None]
        best = min(valid, key=lambda r: r["ms"])
        wins[best["key"]] += 1
        cub = d["cublas"]["ms"]
        name = f"{M}x{N}x{K}"
        print(f"| {name} | {split.get(name, '-')} | {best['key']} | {best['ms']:.4f} | "
              f"{2 * M * N * K / best['ms'] / 1e9:.0f} | {cub:.4f} | {best['ms'] / cub:.2f} | "
              f"{sum(r['ms'] < cub for r in cfg_rows)} | {max(r['rel_err'] for r in valid):.1e} |")
    print("\nbest-configuration counts: " + ", ".join(f"{k} {n}" for k, n in wins.most_common()))

    nan_rows = [r for r in rows if r.get("n_nan")]
    nonzero = collections.Counter(f"{r['M']}x{r['N']}x{r['K']}" for r in rows
                                  if r["key"] != "cublas" and r.get("rel_err") not in (0.0, None))
    print(f"rows with NaN: {len(nan_rows)}; rows with rel_err != 0 by shape: {dict(nonzero) or 'none'}")

    if not args.ref:
        return
    ref_cfg = {r["key"]: r for r in load_jsonl(os.path.join(args.ref, "configs.jsonl"))}
    ref_rows = load_jsonl(os.path.join(args.ref, "timings.jsonl"))
    ref_t = {(r["M"], r["N"], r["K"], r["key"]): r["ms"] for r in ref_rows}
    both = [k for k in ok if k in ref_cfg and "error" not in ref_cfg[k]]
    same_err = ({k for k, c in configs.items() if "error" in c} == {k for k, c in ref_cfg.items() if "error" in c})
    print(f"\n## Against {args.ref}\n")
    print(f"refused set identical: {same_err}")
    for field in ("n_regs", "n_spills", "shared", "occupancy"):
        eq = sum(configs[k][field] == ref_cfg[k][field] for k in both)
        print(f"{field}: equal for {eq} of {len(both)}")
    diff = [configs[k]["n_regs"] - ref_cfg[k]["n_regs"] for k in both]
    print(f"n_regs (this - ref): mean {statistics.mean(diff):+.1f}, mean |diff| "
          f"{statistics.mean(abs(x) for x in diff):.1f}, range {min(diff):+d}..{max(diff):+d}, "
          f"within 8: {sum(abs(x) <= 8 for x in diff)}")
    occ = [(k, ref_cfg[k]["occupancy"], configs[k]["occupancy"]) for k in both
           if configs[k]["occupancy"] != ref_cfg[k]["occupancy"]]
    print(f"occupancy differs (key, ref, this): {occ or 'none'}")

    print("\n| shape | time ratio this/ref: median | p10 | p90 | cuBLAS ratio | Spearman rank corr. | "
          "ref best (ms) | this best (ms) |")
    print("|---|---|---|---|---|---|---|---|")
    for (M, N, K), d in by_shape.items():
        if (M, N, K, "cublas") not in ref_t:
            continue
        keys = [k for k in both if (M, N, K, k) in ref_t and k in d]
        ratios = [d[k]["ms"] / ref_t[(M, N, K, k)] for k in keys]
        q = statistics.quantiles(ratios, n=10)
        rho = spearman([ref_t[(M, N, K, k)] for k in keys], [d[k]["ms"] for k in keys])
        rb = min(keys, key=lambda k: ref_t[(M, N, K, k)])
        tb = min(keys, key=lambda k: d[k]["ms"])
        print(f"| {M}x{N}x{K} | {statistics.median(ratios):.3f} | {q[0]:.3f} | {q[-1]:.3f} | "
              f"{d['cublas']['ms'] / ref_t[(M, N, K, 'cublas')]:.3f} | {rho:.3f} | "
              f"{rb} ({ref_t[(M, N, K, rb)]:.4f}) | {tb} ({d[tb]['ms']:.4f}) |")


if __name__ == "__main__":
    main()
