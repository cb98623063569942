#!/usr/bin/env python3
"""Fit the split-K reduction constants of a kernel family from a split-K dataset.

The reduction kernel that follows a split GEMM (workspace variant) reads the
split_k fp32 partial tiles and writes C. Its time is modelled as

    t_reduce = reduce_launch_us + split_k * reduce_split_us
               + (split_k*M*N*4 + M*N*out_bytes) / reduce_gbps

(reduce_split_us only with --per-split: the time each partial adds beyond its
bytes, as where M*N is small the reduction's loads wait one after another)
and fitted by least squares, relative (each residual over the measured time),
on the dataset's `aux_reduce_k{S}` rows (the reduction kernel timed alone, per
shape and split factor) of its calibration shapes (split.json). The constants
are written into the family file's "split_k" section, with where they came
from; every other key of the file is kept as it is.

    python3 scripts/fit_splitk.py data/h200-triton-splitk-v1 data/families/triton.json [--out-bytes 2] [--per-split]

Standard library only (no numpy): two or three unknowns, so the normal equations.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys


def reduce_points(dataset: pathlib.Path, out_bytes: int):
    """(bytes moved, measured us) of every aux_reduce row of a calibration shape."""
    split = json.loads((dataset / "split.json").read_text())
    calibration = set(split["calibration"])
    points = []
    with open(dataset / "timings.jsonl") as f:
        for line in f:
            row = json.loads(line)
            if row.get("variant") != "aux" or not row["key"].startswith("aux_reduce_k"):
                continue
            m, n, k = row["M"], row["N"], row["K"]
            if f"{m}x{n}x{k}" not in calibration:
                continue
            s = int(row["key"][len("aux_reduce_k"):])
            points.append((s * m * n * 4 + m * n * out_bytes, row["ms"] * 1e3, s))
    return points


def solve(a, b):
    """x with a.x = b (Gaussian elimination with partial pivoting), or None if singular."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        if abs(m[p][c]) < 1e-300:
            return None
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(points, per_split=False):
    """Relative least squares of us = a + c*split + b*bytes (c = 0 unless per_split):
    returns (a in us, 1/b in GB/s, c in us)."""
    basis = (lambda x, s: (1.0, x, float(s))) if per_split else (lambda x, s: (1.0, x))
    n = 3 if per_split else 2
    ata = [[0.0] * n for _ in range(n)]
    aty = [0.0] * n
    for x, y, s in points:
        row = [v / y for v in basis(x, s)]
        for i in range(n):
            aty[i] += row[i]
            for j in range(n):
                ata[i][j] += row[i] * row[j]
    sol = solve(ata, aty) if len(points) > n else None
    if sol is None:
        raise SystemExit("fit_splitk.py: too few distinct reductions among the calibration rows to fit "
                         f"{n} constants")
    a, b = sol[0], sol[1]
    c = sol[2] if per_split else 0.0
    if b <= 0:
        raise SystemExit("fit_splitk.py: the fitted rate is not positive: the rows do not grow with the bytes")
    if c < 0:
        raise SystemExit("fit_splitk.py: the fitted time per split is negative: fit without --per-split")
    return a, 1.0 / b / 1e3, c


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=pathlib.Path)
    parser.add_argument("family", type=pathlib.Path, help="family file to update in place")
    parser.add_argument("--out-bytes", type=int, default=2, help="bytes of one C element (2: float16 output)")
    parser.add_argument("--per-split", action="store_true",
                        help="fit reduce_split_us too (the time each partial tile adds beyond its bytes)")
    args = parser.parse_args()
    points = reduce_points(args.dataset, args.out_bytes)
    launch_us, gbps, split_us = fit(points, args.per_split)
    launch_us = max(launch_us, 0.0)
    worst = max(abs(launch_us + s * split_us + x / (gbps * 1e3) - y) / y for x, y, s in points)
    family = json.loads(args.family.read_text())
    flag = " --per-split" if args.per_split else ""
    source = (f"scripts/fit_splitk.py {args.dataset}{flag}: relative least squares on the {len(points)} aux_reduce "
              f"rows of its calibration shapes (worst error {worst:.1%})")
    constants = {"reduce_gbps": {"value": gbps}, "reduce_launch_us": {"value": launch_us}}
    if args.per_split:
        constants["reduce_split_us"] = {"value": split_us}
    family["split_k"] = {"constants": constants, "fitted_on": source, "variant": "workspace"}
    args.family.write_text(json.dumps(family, indent=2) + "\n")
    print(f"reduce_launch_us {launch_us:.3f} us, reduce_split_us {split_us:.3f} us, reduce_gbps {gbps:.1f} GB/s "
          f"over {len(points)} rows (worst relative error {worst:.1%}); wrote {args.family}", file=sys.stderr)


if __name__ == "__main__":
    main()
