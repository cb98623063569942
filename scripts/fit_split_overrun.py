#!/usr/bin/env python3
"""Fit the split GEMM's overrun terms on split GEMMs timed alone.

A split kernel's GEMM runs over the model's GEMM part by more the larger the
split (docs/model.md §3, "Split-K"). Two terms of the family's split_k
section price that overrun (the shipped family has 1.0 and 0.1, chosen next
to this fit):

    partial_store_share   adds that share of the fp32 partial tiles' DRAM
                          time (split * M * N * 4 bytes / DRAM bandwidth)
                          after the SMs' and DRAM's join;
    split_dram_share      scales the split GEMM's DRAM time by 1 + it.

This script fits them by least squares on datasets measured with the split-K
harness's --gemm-alone (rows of variant `gemm_alone`, beside `workspace`
and the unsplit `none`): for every kernel within --near of its shape's best
whole time, the residual is its measured GEMM (unsplit: its whole time) less
the model's GEMM part (`predicted_us - reduce_us` of `tileplan tile`). Every
kernel of a shape carries the same fixed cost (the L2 write-back of the
timing), so each shape has an intercept of its own: the fit is on the
residuals less their shape's mean. Each term's effect on a kernel is its
finite difference (the model with the term at 1 and at 0.1, less without),
linear in partial_store_share and close to linear in split_dram_share.

Prints the two fitted jointly and each alone; then, as the next form to
judge, the DRAM share fitted per split factor (each factor a share of its
own, with the store share), and the one-constant form 2 * share * (1 - 1/s)
that follows it (the share of B that the programs of the other K slices
stream at once). Standard library only:

    python3 scripts/fit_split_overrun.py [--near 1.2] [--device h200]
        [--family-file data/families/triton.json] [--tileplan build/release/tileplan] DATASET...

    python3 scripts/fit_split_overrun.py data/h200-triton-splitk-graph/{one,m,big,big2}
"""

from __future__ import annotations

import copy
import json
import math
import pathlib
import statistics
import tempfile

from harness_io import json_lines, refusal, tile_json

ROOT = pathlib.Path(__file__).resolve().parent.parent
fail, Parser = refusal("fit_split_overrun.py")
DRAM_STEP = 0.1  # split_dram_share's finite difference


def shapes(folder: pathlib.Path):
    """{(M, N, K, dtype, b_layout): {(tile, split, variant): ms}} of a split-K dataset."""
    path = folder / "timings.jsonl"
    if not path.is_file():
        fail(f"{folder}: no timings.jsonl (a folder of the split-K harness)")
    out: dict = {}
    for where, r in json_lines(path, fail):
        if r.get("variant") not in ("none", "workspace", "gemm_alone"):
            continue
        try:
            key = (int(r["M"]), int(r["N"]), int(r["K"]), r.get("dtype", "float16"), r.get("b_layout", "row"))
            kern = (r["tile"], int(r["split_k"]), r["variant"])
            ms = float(r["ms"])
        except (KeyError, TypeError, ValueError):
            fail(f"{where}: a timing row needs M, N, K, tile, split_k, variant and ms")
        if not 0 < ms < math.inf:
            fail(f"{where}: ms must be a positive finite number, got {r['ms']!r}")
        out.setdefault(key, {})[kern] = ms
    return out


def gemm_parts(tileplan, family_path, shape, device, splits):
    """{(tile, split): the model's GEMM part in us} for every feasible configuration of the shape."""
    m, n, k, dtype, b_layout = shape
    args = [tileplan, "tile", "--m", str(m), "--n", str(n), "--k", str(k), "--dtype", dtype, "--b-layout", b_layout,
            "--device", device, "--family-file", family_path, "--format", "json", "--topk", "0",
            "--block-m", "16,32,64,128,256", "--block-n", "32,64,128,256", "--block-k", "32,64,128",
            "--stages", "2,3,4,5", "--threads", "128,256", "--split-k", ",".join(map(str, sorted(splits)))]
    out = {}
    for c in tile_json(args, fail, f"{m}x{n}x{k}")["candidates"]:
        tile = f"{c['block_m']}x{c['block_n']}x{c['block_k']}_s{c['stages']}_w{c['threads'] // 32}"
        out[(tile, c["split_k"])] = c["predicted_us"] - c["reduce_us"]
    return out


def main() -> int:
    ap = Parser(description=__doc__.split("\n")[0])
    ap.add_argument("datasets", nargs="+", help="split-K dataset folders measured with --gemm-alone")
    ap.add_argument("--near", default="1.2", help="kernels within this factor of their shape's best (default 1.2)")
    ap.add_argument("--device", default="h200", help="the preset that prices the datasets")
    ap.add_argument("--family-file", default=str(ROOT / "data/families/triton.json"))
    ap.add_argument("--tileplan", default=str(ROOT / "build/release/tileplan"))
    a = ap.parse_args()
    try:
        near = float(a.near)
    except ValueError:
        near = math.nan
    if not 1 <= near <= 10:
        fail(f"--near {a.near!r}: a factor from 1 to 10")
    try:
        family = json.loads(pathlib.Path(a.family_file).read_text())
        family["split_k"]["constants"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"--family-file {a.family_file}: not a family file with a split_k section ({str(e)[:120]})")

    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for name, store, dram in (("base", 0.0, 0.0), ("store", 1.0, 0.0), ("dram", 0.0, DRAM_STEP)):
            f = copy.deepcopy(family)
            f["split_k"]["constants"]["partial_store_share"] = {"value": store}
            f["split_k"]["constants"]["split_dram_share"] = {"value": dram}
            # The probes are flat (the fit's per-split shares and its grown
            # form come from them), whatever growth the family file holds.
            f["split_k"]["constants"]["split_dram_growth"] = {"value": 0.0}
            paths[name] = str(pathlib.Path(tmp) / f"{name}.json")
            pathlib.Path(paths[name]).write_text(json.dumps(f))
        by_shape = {}
        for folder in map(pathlib.Path, a.datasets):
            for shape, kernels in shapes(folder).items():
                whole = {(t, s): ms for (t, s, v), ms in kernels.items() if v in ("none", "workspace")}
                if not whole:
                    continue
                best = min(whole.values())
                splits = {s for _, s in whole} | {1}
                models = {name: gemm_parts(a.tileplan, p, shape, a.device, splits) for name, p in paths.items()}
                points = []
                for (tile, split), ms in whole.items():
                    alone = kernels.get((tile, split, "gemm_alone")) if split > 1 else ms
                    if alone is None or ms > near * best or (tile, split) not in models["base"]:
                        continue
                    g0 = models["base"][(tile, split)]
                    points.append((alone * 1e3 - g0, models["store"][(tile, split)] - g0,
                                   (models["dram"][(tile, split)] - g0) / DRAM_STEP, split))
                if len(points) >= 2:
                    by_shape[f"{shape[0]}x{shape[1]}x{shape[2]}"] = points
    if not by_shape:
        fail("no shape with two or more kernels near its best, timed alone (measure with --gemm-alone)")

    # Residuals and features less their shape's mean: the per-shape intercepts drop out.
    s11 = s12 = s22 = s1y = s2y = 0.0
    n = 0
    for points in by_shape.values():
        my, m1, m2 = (statistics.fmean(p[i] for p in points) for i in range(3))
        for y, x1, x2, _ in points:
            y, x1, x2 = y - my, x1 - m1, x2 - m2
            s11, s12, s22, s1y, s2y = s11 + x1 * x1, s12 + x1 * x2, s22 + x2 * x2, s1y + x1 * y, s2y + x2 * y
            n += 1
    det = s11 * s22 - s12 * s12
    if s11 <= 0 or s22 <= 0 or abs(det) <= 1e-12 * s11 * s22:
        fail("the kernels do not separate the two terms (no split kernels, or one split factor per shape)")
    store = (s1y * s22 - s2y * s12) / det
    dram = (s11 * s2y - s12 * s1y) / det
    print(f"{n} kernels of {len(by_shape)} shapes within {near:g} of their best, per-shape intercepts")
    print(f"jointly: partial_store_share {store:.3f}, split_dram_share {dram:.4f}")
    print(f"alone:   partial_store_share {s1y / s11:.3f}, split_dram_share {s2y / s22:.4f}")
    splits = sorted({p[3] for points in by_shape.values() for p in points if p[3] > 1})
    per_split = [lambda x2, s, f=f: x2 if s == f else 0.0 for f in splits]
    coef, rss = least_squares(by_shape, per_split)
    flat, rss_flat = least_squares(by_shape, [lambda x2, s: x2])
    grows, rss_grows = least_squares(by_shape, [lambda x2, s: 2.0 * x2 * (1.0 - 1.0 / s)])
    print(f"residual sum of squares (us^2): flat share {rss_flat:.1f}; by split "
          + ", ".join(f"{f}: {c:.3f}" for f, c in zip(splits, coef[1:])) + f" with partial_store_share {coef[0]:.3f}, "
          f"{rss:.1f}; 2 * share * (1 - 1/s): share {grows[1]:.4f} with partial_store_share {grows[0]:.3f}, {rss_grows:.1f}")
    return 0


def least_squares(by_shape, dram_features):
    """Least squares of the residuals on partial_store_share's effect and the DRAM features (each a function
    of a kernel's split_dram_share effect and split factor), per-shape means removed: (coefficients, the
    residual sum of squares). Normal equations, Gaussian elimination with partial pivoting."""
    rows, ys = [], []
    for points in by_shape.values():
        feats = [[x1] + [g(x2, s) for g in dram_features] for _, x1, x2, s in points]
        means = [statistics.fmean(col) for col in zip(*feats)]
        my = statistics.fmean(p[0] for p in points)
        for p, f in zip(points, feats):
            rows.append([v - m for v, m in zip(f, means)])
            ys.append(p[0] - my)
    k = len(rows[0])
    a = [[sum(r[i] * r[j] for r in rows) for j in range(k)] + [sum(r[i] * y for r, y in zip(rows, ys))] for i in range(k)]
    for c in range(k):
        pivot = max(range(c, k), key=lambda r: abs(a[r][c]))
        a[c], a[pivot] = a[pivot], a[c]
        if abs(a[c][c]) <= 1e-12:
            fail("the kernels do not separate the split factors' DRAM shares")
        for r in range(k):
            if r != c:
                f = a[r][c] / a[c][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c])]
    coef = [a[i][k] / a[i][i] for i in range(k)]
    rss = sum((sum(c * v for c, v in zip(coef, r)) - y) ** 2 for r, y in zip(rows, ys))
    return coef, rss


if __name__ == "__main__":
    raise SystemExit(main())
