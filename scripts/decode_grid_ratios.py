#!/usr/bin/env python3
"""Decode tiles' measured over predicted time, by the grid's size and the split.

For every shape with M <= --max-m of the given split-K harness datasets
(bench/gpu/triton_splitk_harness.py), runs `tileplan tile` over the grid the
harness measured (the dataset's device preset: h100-sxm for an H100, h200
otherwise) and pairs each measured configuration with its predicted time.
Each 16-row configuration within --near (1.15) of its shape's best gets its
measured / predicted time over the median of that ratio among the shape's
configurations so kept, so a shape's own offset cancels; what remains is how
the model prices one such configuration against another. The medians of that
normalised ratio are printed by device, input type (16-bit or fp8), split
band (1, 2-3, 4-6, 8 and more) and the grid's programs over the SMs (up to
half a wave, up to one, two, four, and more).

--rerank A,B asks whether the pattern could move picks: every configuration
(any block_M) is ranked by its predicted time times 1 + A x min(1, w) for a
grid of w <= 1 waves and 1 + A - B x min(1, w - 1) beyond (16- and 32-row
tiles only), and the top-1 regret's geomean and worst over the shapes are
printed with and without the factor. Then, for the shapes whose first pick
(the least predicted time over the measured grid) is more than 1% slower
than the measured best, whether the pick's split factor is below the best's,
the same, or above it, by device, input type and B's layout. docs/model.md
§6 reads all three.

    python3 scripts/decode_grid_ratios.py
    python3 scripts/decode_grid_ratios.py --rerank 0.06,0.06

Default datasets: every data/h*-triton-splitk-* folder (and sub-folder) with
a timings.jsonl, but the repeated measurements (*-repeat*). Standard library
only.
"""

import glob
import json
import math
import os
import pathlib
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from harness_io import SPLIT_KEY, refusal, split_grids, split_plan  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
SPLIT_BANDS = [(1, 1, "1"), (2, 3, "2-3"), (4, 6, "4-6"), (8, math.inf, "8+")]
WAVE_BANDS = [(0.0, 0.5, "<=0.5"), (0.5, 1.0, "0.5-1"), (1.0, 2.0, "1-2"), (2.0, 4.0, "2-4"), (4.0, math.inf, ">4")]

fail, Parser = refusal("decode_grid_ratios.py")


def split_band(s):
    return next(b[2] for b in SPLIT_BANDS if b[0] <= s <= b[1])


def wave_band(w):
    return next(b[2] for b in WAVE_BANDS if w <= b[1])


def dataset_device(ds):
    try:
        with open(f"{ds}/meta.json", encoding="utf-8") as f:
            gpu = json.load(f).get("gpu", "")
    except (OSError, ValueError) as e:
        fail(f"{ds}/meta.json: cannot be read as JSON ({getattr(e, 'strerror', None) or e})")
    if not isinstance(gpu, str):
        fail(f"{ds}/meta.json: \"gpu\" must be a string")
    return "h100-sxm" if "H100" in gpu else "h200"


def main():
    ap = Parser(description=__doc__.splitlines()[0])
    ap.add_argument("datasets", nargs="*", help="split-K harness dataset folders (default: every data/h*-triton-splitk-*)")
    ap.add_argument("--max-m", type=int, default=64, help="keep shapes with M at most this (default 64)")
    ap.add_argument("--near", type=float, default=1.15,
                    help="keep configurations within this factor of their shape's best (default 1.15)")
    ap.add_argument("--rerank", help="A,B: rank by the predicted time times the grid factor (see above)")
    ap.add_argument("--sms", type=int, default=132, help="the devices' SM count (default 132: H100 SXM and H200)")
    ap.add_argument("--tileplan", default=str(ROOT / "build" / "release" / "tileplan"))
    a = ap.parse_args()
    if a.max_m < 1:
        fail(f"--max-m {a.max_m}: must be a positive integer")
    if not (math.isfinite(a.near) and a.near >= 1.0):
        fail(f"--near {a.near}: must be a finite number of at least 1")
    if a.sms < 1:
        fail(f"--sms {a.sms}: must be a positive integer")
    rerank = None
    if a.rerank is not None:
        try:
            rerank = [float(x) for x in a.rerank.split(",")]
        except ValueError:
            rerank = None
        if rerank is None or len(rerank) != 2 or not all(math.isfinite(x) and 0 <= x < 1 for x in rerank):
            fail(f"--rerank {a.rerank!r}: two numbers from 0 to below 1, A,B (e.g. 0.06,0.06)")
    every = sorted(os.path.dirname(p) for p in glob.glob(str(ROOT / "data/h*-triton-splitk-*/**/timings.jsonl"),
                                                           recursive=True) if "repeat" not in p)
    sets = a.datasets or every
    for ds in sets:
        if not os.path.isfile(f"{ds}/timings.jsonl"):
            fail(f"{ds}: no timings.jsonl (a dataset directory of the split-K harness)")
    ratios, shapes, directions = {}, [], {}
    for ds in sets:
        dev = dataset_device(ds)
        for case, times in sorted(split_grids(f"{ds}/timings.jsonl", fail).items()):
            if case[0] > a.max_m:
                continue
            pred = {key: (c["predicted_us"], c["grid"], c["blocks_per_sm"])
                    for key, c in split_plan(a.tileplan, case, list(times), fail, ("--device", dev)).items()}
            joined = [(key, ms, pred[key]) for key, ms in times.items() if key in pred]
            if not joined:
                continue
            best = min(ms for _, ms, _ in joined)
            shapes.append((best, joined))
            pick, fastest = min(joined, key=lambda j: j[2][0]), min(joined, key=lambda j: j[1])
            side = "within"
            if pick[1] > 1.01 * best:
                p_split, b_split = (int(SPLIT_KEY.match(j[0]).group(6)) for j in (pick, fastest))
                side = "below" if p_split < b_split else "above" if p_split > b_split else "same"
            kind = "fp8" if case[3].startswith("float8") else "16-bit"
            cell = directions.setdefault((dev, kind, "B K-major" if case[5] == "col" else "B N-major"), {})
            cell[side] = cell.get(side, 0) + 1
            near = [(key, ms * 1e3 / p[0], p) for key, ms, p in joined
                    if ms <= a.near * best and key.startswith("16x")]
            if not near:
                continue
            mid = statistics.median(r for _, r, _ in near)
            for key, r, p in near:
                split = int(SPLIT_KEY.match(key).group(6))
                cell = (dev, kind, split_band(split), wave_band(p[1] / a.sms))
                ratios.setdefault(cell, []).append(r / mid)
    if not shapes:
        fail("no shape with M <= --max-m in the datasets")
    print(f"16-row tiles within {a.near}x of the best, measured / predicted over the shape's median, "
          f"{len(shapes)} shapes:")
    print("device    type    split  waves    configs  median")
    order = {b[2]: i for i, b in enumerate(SPLIT_BANDS + WAVE_BANDS)}
    for cell in sorted(ratios, key=lambda c: (c[0], c[1], order[c[2]], order[c[3]])):
        xs = ratios[cell]
        if len(xs) >= 15:
            print(f"{cell[0]:9s} {cell[1]:7s} {cell[2]:6s} {cell[3]:8s} {len(xs):7d}  {statistics.median(xs):.3f}")
    print("the pick's split against the measured best's (shapes whose pick is over 1.01):")
    print("device    type    layout     within  below   same  above")
    for cell in sorted(directions):
        d = directions[cell]
        counts = " ".join(f"{d.get(k, 0):6d}" for k in ("within", "below", "same", "above"))
        print(f"{cell[0]:9s} {cell[1]:7s} {cell[2]:9s} {counts}")
    if rerank:
        ra, rb = rerank

        def factor(key, p):
            if not (key.startswith("16x") or key.startswith("32x")):
                return 1.0
            w = p[1] / (a.sms * p[2])
            return 1.0 + ra * min(1.0, w) if w <= 1 else 1.0 + ra - rb * min(1.0, w - 1.0)

        for name, f in (("the model", lambda key, p: 1.0), (f"with the grid factor {ra},{rb}", factor)):
            logs = [math.log(min(joined, key=lambda j: j[2][0] * f(j[0], j[2]))[1] / best) for best, joined in shapes]
            print(f"top-1 regret, {name}: geomean {math.exp(sum(logs) / len(logs)):.4f}, worst "
                  f"{math.exp(max(logs)):.3f} over {len(logs)} shapes")


if __name__ == "__main__":
    main()
