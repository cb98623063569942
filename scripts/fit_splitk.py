#!/usr/bin/env python3
"""Fit the split-K reduction constants of a kernel family from a split-K dataset.

The reduction kernel that follows a split GEMM (workspace variant) reads the
split_k fp32 partial tiles and writes C. Its time is modelled as

    t_reduce = reduce_launch_us + split_k * reduce_split_us
               + (split_k*M*N*4 + M*N*out_bytes) / reduce_gbps

(reduce_split_us only with --per-split: the time each partial adds beyond its
bytes, as where M*N is small the reduction's loads wait one after another)
and fitted by least squares, relative (each residual over the measured time),
on the calibration shapes (split.json) of the datasets:

- by default on their `aux_reduce_k{S}` rows: the reduction kernel timed
  alone, per shape and split factor (each such time carries a launch and the
  timing's own fixed cost);
- with --marginal on what the reduction adds after its GEMM: per shape and
  split factor, the median over the workspace kernels of the kernel's time
  less its GEMM's timed alone (rows of variant `gemm_alone`, measured with
  the split-K harness's --gemm-alone), both timed the same way (a CUDA graph
  each): the reduction's cost as the model adds it to the GEMM's.

The constants are written into the family file's "split_k" section, with
where they came from; every other key of the file is kept as it is, and so
are the split GEMM's own constants of that section (partial_store_share,
split_dram_share: scripts/fit_split_overrun.py). Bad
input (a missing dataset, no calibration rows of the kind asked for) is one
line on stderr and exit status 2.

    python3 scripts/fit_splitk.py DATASET... data/families/triton.json [--out-bytes 2] [--per-split] [--marginal]

Standard library only (no numpy): two or three unknowns, so the normal equations.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys


def fail(message: str) -> None:
    """One line on stderr, exit status 2 (bad input)."""
    print(f"fit_splitk.py: {message}", file=sys.stderr)
    sys.exit(2)


def calibration_names(dataset: pathlib.Path) -> set:
    try:
        split = json.loads((dataset / "split.json").read_text())
        names = split["calibration"]
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ValueError("'calibration' must be a list of case names")
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"{dataset}: not a split-K dataset with a split.json ({str(e)[:120]})")
    return set(names)


def case_name(row) -> str:
    """The row's case as split.json names it: MxNxK for float16 A and B row-major, MxNxK:dtype:LL otherwise."""
    name = f"{row['M']}x{row['N']}x{row['K']}"
    dtype = row.get("dtype", "float16")
    lay = ("r" if row.get("a_layout", "row") == "row" else "c") + ("r" if row.get("b_layout", "row") == "row" else "c")
    return name if dtype == "float16" and lay == "rr" else f"{name}:{dtype}:{lay}"


def timing_rows(dataset: pathlib.Path):
    try:
        with open(dataset / "timings.jsonl") as f:
            return [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        fail(f"{dataset}: timings.jsonl cannot be read ({str(e)[:120]})")


def marginal_points(dataset: pathlib.Path, out_bytes: int):
    """(bytes moved, us the reduction adds after its GEMM, split) per calibration shape and split factor:
    the median over the workspace kernels of (kernel's time - its GEMM's time alone)."""
    calibration = calibration_names(dataset)
    whole, alone, shapes = {}, {}, {}
    for row in timing_rows(dataset):
        if case_name(row) not in calibration or not isinstance(row.get("split_k"), int) or row["split_k"] < 2:
            continue
        key = (case_name(row), row.get("tile"), row["split_k"])
        shapes[key[0]] = (row["M"], row["N"])
        if row.get("variant") == "workspace" and row.get("rel_err") is not None:
            whole[key] = row["ms"] * 1e3
        elif row.get("variant") == "gemm_alone":
            alone[key] = row["ms"] * 1e3
    by_split = {}
    for key, t in whole.items():
        if key in alone:
            by_split.setdefault((key[0], key[2]), []).append(t - alone[key])
    points = []
    for (name, s), v in sorted(by_split.items()):
        v.sort()
        median = v[len(v) // 2] if len(v) % 2 else 0.5 * (v[len(v) // 2 - 1] + v[len(v) // 2])
        m, n = shapes[name]
        points.append((s * m * n * 4 + m * n * out_bytes, median, s))
    return points


def reduce_points(dataset: pathlib.Path, out_bytes: int):
    """(bytes moved, measured us, split) of every aux_reduce row of a calibration shape."""
    calibration = calibration_names(dataset)
    points = []
    for row in timing_rows(dataset):
        if row.get("variant") != "aux" or not str(row.get("key", "")).startswith("aux_reduce_k"):
            continue
        if case_name(row) not in calibration:
            continue
        m, n = row["M"], row["N"]
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
    parser.add_argument("datasets", type=pathlib.Path, nargs="+", metavar="DATASET")
    parser.add_argument("family", type=pathlib.Path, help="family file to update in place")
    parser.add_argument("--out-bytes", type=int, default=2, help="bytes of one C element (2: float16 output)")
    parser.add_argument("--per-split", action="store_true",
                        help="fit reduce_split_us too (the time each partial tile adds beyond its bytes)")
    parser.add_argument("--marginal", action="store_true",
                        help="fit on what the reduction adds after its GEMM (workspace kernels less their "
                        "gemm_alone rows), not on the reduction timed alone")
    args = parser.parse_args()
    if not (1 <= args.out_bytes <= 8):
        fail(f"--out-bytes {args.out_bytes} must be between 1 and 8")
    try:
        family = json.loads(args.family.read_text())
        if not isinstance(family, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as e:
        fail(f"{args.family}: not a family file ({str(e)[:120]})")
    points = []
    for d in args.datasets:
        if not d.is_dir():
            fail(f"{d}: not a dataset directory")
        got = marginal_points(d, args.out_bytes) if args.marginal else reduce_points(d, args.out_bytes)
        if not got:
            fail(f"{d}: no " + ("workspace kernel with a gemm_alone row" if args.marginal else "aux_reduce row")
                 + " among its calibration shapes")
        points += got
    launch_us, gbps, split_us = fit(points, args.per_split)
    launch_us = max(launch_us, 0.0)
    worst = max(abs(launch_us + s * split_us + x / (gbps * 1e3) - y) / y for x, y, s in points)
    flag = (" --per-split" if args.per_split else "") + (" --marginal" if args.marginal else "")
    what = ("(shape, split) medians of what the reduction adds after its GEMM (workspace kernels less their "
            "gemm_alone rows)" if args.marginal else "aux_reduce rows")
    source = (f"scripts/fit_splitk.py {' '.join(str(d) for d in args.datasets)}{flag}: relative least squares on the "
              f"{len(points)} {what} of their calibration shapes (worst error {worst:.1%})")
    constants = {"reduce_gbps": {"value": gbps}, "reduce_launch_us": {"value": launch_us}}
    if args.per_split:
        constants["reduce_split_us"] = {"value": split_us}
    # The split GEMM's own constants (partial_store_share, split_dram_share:
    # scripts/fit_split_overrun.py) are not this fit's: they are kept.
    old = family.get("split_k") if isinstance(family.get("split_k"), dict) else {}
    kept = old.get("constants") if isinstance(old.get("constants"), dict) else {}
    for name, c in kept.items():
        if name not in ("reduce_gbps", "reduce_launch_us", "reduce_split_us"):
            constants[name] = c
    family["split_k"] = {"constants": constants, "fitted_on": source, "variant": "workspace"}
    args.family.write_text(json.dumps(family, indent=2) + "\n")
    print(f"reduce_launch_us {launch_us:.3f} us, reduce_split_us {split_us:.3f} us, reduce_gbps {gbps:.1f} GB/s "
          f"over {len(points)} rows (worst relative error {worst:.1%}); wrote {args.family}", file=sys.stderr)


if __name__ == "__main__":
    main()
