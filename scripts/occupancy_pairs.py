#!/usr/bin/env python3
"""One tile at two occupancies: its best at more blocks per SM over its best at fewer, measured against predicted.

For each measured shape of the datasets, runs `tileplan tile` over the
measured grid (the shape's input type and layouts; packed operands) and
groups every configuration the model plans by its tile and warps
(BMxBNxBK_wW) and by the blocks per SM the model gives it. For each tile
and each two neighbouring occupancies b < b' it has on that shape, the
configuration measured fastest at each (over its stage counts) gives

    error = (measured time at b' / measured time at b)
            / (predicted time at b' / predicted time at b)

above 1 where the model gives the extra resident programs more than they
gain. Pairs where neither time is within --near of the shape's best are left
out (they say nothing about the picks). Lines group the pairs by the kind of
kernel (B through registers with N contiguous, which `narrow_b_mn_step_share`
prices, or any other), the two occupancies and, with --by tile, the tile:
count, median error with its 10th and 90th percentiles, and the median
measured and predicted ratios. --family-file scores a trial family in place of
the shipped one. Standard library only:

  python3 scripts/occupancy_pairs.py
  python3 scripts/occupancy_pairs.py --by tile --near 1.15 data/h200-triton-v37
"""

import concurrent.futures
import json
import math
import os
import pathlib

from harness_io import refusal, rows, tile_json
from predicted_vs_measured import GRID, case_name, pct

ROOT = pathlib.Path(__file__).resolve().parent.parent
fail, Parser = refusal("occupancy_pairs.py")


def default_datasets():
    """Every H200 set of the unsplit harness but the repeats (their cases would count twice)."""
    out = []
    for d in sorted((ROOT / "data").glob("h200-triton-*")):
        if (d / "timings.jsonl").is_file() and "repeat" not in d.name and "splitk" not in d.name:
            out.append(str(d.relative_to(ROOT)))
    return out


def kind_of(dtype, b_layout, candidate):
    """The kind of kernel narrow_b_mn_step_share prices: B row-major (N contiguous) loaded with
    vectors narrower than 16 bytes, so through registers, while A is copied asynchronously."""
    if (dtype in ("float16", "bfloat16") and b_layout == "row" and candidate["vector_bytes_b"] < 16
            and candidate["vector_bytes_a"] == 16):
        return "B through registers, N contiguous"
    return "any other kernel"


def tile_key(c):
    return f"{c['block_m']}x{c['block_n']}x{c['block_k']}_w{c['threads'] // 32}"


def config_key(c):
    return f"{c['block_m']}x{c['block_n']}x{c['block_k']}_s{c['stages']}_w{c['threads'] // 32}"


class Refused(Exception):
    pass


def load(ds):
    """(M, N, K, dtype, a_layout, b_layout) -> {config key: us} of one dataset's packed, unsplit rows."""
    out = {}
    for m, n, k, dtype, a_layout, b_layout, key, ms in rows(f"{ds}/timings.jsonl", fail):
        out.setdefault((m, n, k, dtype, a_layout, b_layout), {})[key] = ms * 1e3
    return out


def plan(tileplan, case, family_file):
    m, n, k, dtype, a_layout, b_layout = case
    args = [tileplan, "tile", "--m", str(m), "--n", str(n), "--k", str(k), "--dtype", dtype, "--a-layout", a_layout,
            "--b-layout", b_layout, "--topk", "0", "--format", "json", *GRID]
    if family_file:
        args += ["--family-file", family_file]

    def refuse(message):  # run in a worker thread: the main thread says it, once
        raise Refused(message)

    try:
        return tile_json(args, refuse, case_name(m, n, k, dtype, a_layout, b_layout))
    except Refused as e:
        return str(e)


def pairs_of(case, measured, planned, near):
    """(kind, tile, (b, b'), error, measured ratio, predicted ratio) of one shape."""
    dtype, b_layout = case[3], case[5]
    if not planned["candidates"]:
        return []
    kind = kind_of(dtype, b_layout, planned["candidates"][0])
    best = min(measured.values())
    by_tile = {}
    for c in planned["candidates"]:
        us = measured.get(config_key(c))
        if us is None:
            continue
        at = by_tile.setdefault(tile_key(c), {})
        b = c["blocks_per_sm"]
        if b not in at or us < at[b][0]:
            at[b] = (us, c["predicted_us"])
    out = []
    for tile, at in by_tile.items():
        occupancies = sorted(at)
        for lo, hi in zip(occupancies, occupancies[1:]):
            (m_lo, p_lo), (m_hi, p_hi) = at[lo], at[hi]
            if min(m_lo, m_hi) > near * best:
                continue
            measured_ratio, predicted_ratio = m_hi / m_lo, p_hi / p_lo
            out.append((kind, tile, (lo, hi), measured_ratio / predicted_ratio, measured_ratio, predicted_ratio))
    return out


def main():
    ap = Parser(description=__doc__.splitlines()[0])
    ap.add_argument("datasets", nargs="*", help="dataset folders (default: every data/h200-triton-* but the repeats "
                                                "and the split-K sets)")
    ap.add_argument("--near", type=float, default=1.2,
                    help="keep pairs where either time is within this factor of the shape's best (default 1.2)")
    ap.add_argument("--by", choices=["kind", "tile"], default="kind", help="group by kind of kernel, or also by tile")
    ap.add_argument("--family-file", default=None, help="score this family file in place of the shipped family")
    ap.add_argument("--tileplan", default=str(ROOT / "build" / "release" / "tileplan"))
    a = ap.parse_args()
    if not (a.near >= 1.0 and math.isfinite(a.near)):
        fail(f"--near {a.near}: must be a finite number of at least 1")
    if a.family_file is not None and not os.path.isfile(a.family_file):
        fail(f"--family-file {a.family_file}: no such file")
    if not os.access(a.tileplan, os.X_OK):
        fail(f"--tileplan {a.tileplan}: not an executable (build the release preset first)")
    datasets = a.datasets or default_datasets()
    cases = []
    for name in datasets:
        ds = pathlib.Path(name)
        if not (ds / "timings.jsonl").is_file():
            fail(f"{ds}: no timings.jsonl (a dataset directory of the harness)")
        cases += sorted(load(ds).items(), key=lambda kv: str(kv[0]))
    if not cases:
        fail("no measured configuration in the datasets given")
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(8, os.cpu_count() or 1))) as pool:
        plans = list(pool.map(lambda cm: plan(a.tileplan, cm[0], a.family_file), cases))
    for planned in plans:
        if isinstance(planned, str):
            fail(planned)
    groups = {}
    for (case, measured), planned in zip(cases, plans):
        for kind, tile, occ, err, mr, pr in pairs_of(case, measured, planned, a.near):
            key = (kind, occ, tile if a.by == "tile" else "")
            groups.setdefault(key, []).append((err, mr, pr))
    if not groups:
        fail(f"no tile measured at two occupancies within {a.near:g}x of a shape's best")
    for (kind, (lo, hi), tile), xs in sorted(groups.items()):
        errs, mrs, prs = ([x[i] for x in xs] for i in range(3))
        label = f"{kind}{' ' + tile if tile else ''}, {hi} over {lo} blocks/SM"
        print(f"{label:<58} n={len(xs):5d}  error median {pct(errs, 0.5):.3f}  p10-p90 {pct(errs, 0.1):.3f}-"
              f"{pct(errs, 0.9):.3f}  measured {pct(mrs, 0.5):.3f}  predicted {pct(prs, 0.5):.3f}")


if __name__ == "__main__":
    main()
