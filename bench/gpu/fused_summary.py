#!/usr/bin/env python3
"""Per-shape table of data/h200-triton-splitk-fused: the best correct kernel of
each variant, cuBLAS, and the ratios the dataset's README quotes.

    python3 bench/gpu/fused_summary.py data/h200-triton-splitk-fused

A row counts when every element of C matched (rel_err <= 1e-2, no NaN) and a
fused kernel left its workspace and counters zero. Pure Python.
"""
import collections
import json
import math
import os
import sys


def rows_of(path):
    by = collections.defaultdict(list)
    with open(os.path.join(path, "timings.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            by[(r["M"], r["N"], r["K"])].append(r)
    return by


def correct(r):
    return r.get("rel_err") is not None and r["rel_err"] <= 1e-2 and not r.get("dirty")


def best(rs, variant):
    ms = [r["ms"] for r in rs if r.get("variant") == variant and correct(r)]
    return min(ms) * 1e3 if ms else None


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main(root):
    print("| shape | set | cuBLAS µs | best unsplit | best workspace | best fused, first form | "
          "best fused, exchange | first form / workspace | cuBLAS / best of grid (first form) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    ratios, ceil_ws, ceil_f = [], [], []
    counts = collections.Counter()
    for sub in ("v1", "m1a", "v2"):
        first, exch = rows_of(os.path.join(root, "first", sub)), rows_of(os.path.join(root, "exchange", sub))
        for shape, rs in first.items():
            for r in rs:
                if r.get("variant") == "fused":
                    counts["first form rows"] += 1
                    counts["first form rows wrong"] += not correct(r)
            cub = [r["ms"] for r in rs if r["key"] == "cublas"][0] * 1e3
            none, ws, f1 = best(rs, "none"), best(rs, "workspace"), best(rs, "fused")
            fx = best(exch[shape], "fused")
            grid_f = min(x for x in (none, f1) if x)
            cell = lambda x: f"{x:.1f}" if x else "–"
            ratio = f"{f1 / ws:.3f}" if ws else "–"
            if ws:
                ratios.append(f1 / ws)
                ceil_ws.append(cub / min(none, ws))
                ceil_f.append(cub / grid_f)
            print(f"| {'x'.join(map(str, shape))} | {sub} | {cub:.1f} | {cell(none)} | {cell(ws)} | {cell(f1)} | "
                  f"{cell(fx)} | {ratio} | {cub / grid_f:.3f} |")
    print()
    print(f"shapes with both variants measured in one run: {len(ratios)}; best first-form fused / best "
          f"workspace, geomean {geomean(ratios):.3f}; cuBLAS / best of the grid: {geomean(ceil_ws):.3f} with "
          f"the workspace kernel, {geomean(ceil_f):.3f} with the fused one")
    print(f"first-form fused rows: {counts['first form rows']}, wrong: {counts['first form rows wrong']}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "data/h200-triton-splitk-fused")
