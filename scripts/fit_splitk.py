#!/usr/bin/env python3
"""Fit the split-K reduction constants of a kernel family from a split-K dataset.

The reduction kernel that follows a split GEMM (workspace variant) reads the
split_k fp32 partial tiles and writes C. Its time is modelled as

    t_reduce = reduce_launch_us + (split_k*M*N*4 + M*N*out_bytes) / reduce_gbps

and fitted by least squares, relative (each residual over the measured time),
on the dataset's `aux_reduce_k{S}` rows (the reduction kernel timed alone, per
shape and split factor) of its calibration shapes (split.json). The constants
are written into the family file's "split_k" section, with where they came
from; every other key of the file is kept as it is.

    python3 scripts/fit_splitk.py data/h200-triton-splitk-v1 data/families/triton.json [--out-bytes 2]

Standard library only (no numpy): two unknowns, so the normal equations.
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
            points.append((s * m * n * 4 + m * n * out_bytes, row["ms"] * 1e3))
    return points


def fit(points):
    """Relative least squares of us = a + b*bytes: returns (a in us, 1/b in GB/s)."""
    sw = sx = sy = sxx = sxy = 0.0
    for x, y in points:
        w = 1.0 / (y * y)
        sw += w
        sx += w * x
        sy += w * y
        sxx += w * x * x
        sxy += w * x * y
    det = sw * sxx - sx * sx
    if len(points) < 2 or det <= 0:
        raise SystemExit("fit_splitk.py: fewer than two distinct reduction sizes among the calibration rows")
    b = (sw * sxy - sx * sy) / det
    a = (sy - b * sx) / sw
    if b <= 0:
        raise SystemExit("fit_splitk.py: the fitted rate is not positive: the rows do not grow with the bytes")
    return a, 1.0 / b / 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=pathlib.Path)
    parser.add_argument("family", type=pathlib.Path, help="family file to update in place")
    parser.add_argument("--out-bytes", type=int, default=2, help="bytes of one C element (2: float16 output)")
    args = parser.parse_args()
    points = reduce_points(args.dataset, args.out_bytes)
    launch_us, gbps = fit(points)
    worst = max(abs(launch_us + x / (gbps * 1e3) - y) / y for x, y in points)
    family = json.loads(args.family.read_text())
    source = (f"scripts/fit_splitk.py {args.dataset}: relative least squares on the {len(points)} aux_reduce rows "
              f"of its calibration shapes (worst error {worst:.1%})")
    family["split_k"] = {
        "constants": {"reduce_gbps": {"value": gbps}, "reduce_launch_us": {"value": max(launch_us, 0.0)}},
        "fitted_on": source,
        "variant": "workspace",
    }
    args.family.write_text(json.dumps(family, indent=2) + "\n")
    print(f"reduce_launch_us {launch_us:.3f} us, reduce_gbps {gbps:.1f} GB/s over {len(points)} rows "
          f"(worst relative error {worst:.1%}); wrote {args.family}", file=sys.stderr)


if __name__ == "__main__":
    main()
