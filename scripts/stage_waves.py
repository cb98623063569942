#!/usr/bin/env python3
"""One tile at two stage counts, measured against predicted, by the grid's size.

For every measured shape of the given input types and layouts where the
tile was timed at both stage counts (and either time is within --near of
the shape's best), the measured ratio (first stage count's time over the
second's) over the ratio `tileplan tile` predicts, with the grid's
programs. The last lines summarise by programs: up to one wave of the SMs
(132 on the H200), two, four, and more. A median near 1 says the model
prices the extra stage right at that size; docs/model.md §6 ("A deeper
pipeline in grids of many waves") reads it.

    python3 scripts/stage_waves.py --tile 64x256x64_w4 --stages 5,4 --layouts rr

Default datasets: every data/h200-triton* but the repeated measurements
(*-repeat*, whose cases the first runs hold). Standard library only.
"""

import glob
import math
import os
import pathlib
import re
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from harness_io import refusal, rows, tile_and_stages, tile_json  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
TYPES = ("float16", "bfloat16", "float8_e4m3", "float8_e5m2", "tfloat32")
BUCKETS = [(0, 132, "1 wave or less"), (133, 264, "up to 2 waves"), (265, 528, "up to 4 waves"),
           (529, math.inf, "more than 4 waves")]

fail, Parser = refusal("stage_waves.py")


def main():
    ap = Parser(description=__doc__.splitlines()[0])
    ap.add_argument("datasets", nargs="*", help="dataset folders (default: every data/h200-triton* but *-repeat*)")
    ap.add_argument("--tile", required=True, help="BMxBNxBK_wW, e.g. 64x256x64_w4")
    ap.add_argument("--stages", required=True, help="two stage counts A,B: the ratios are A's over B's")
    ap.add_argument("--layouts", required=True, help="layouts of A and B: rr, rc, cr or cc")
    ap.add_argument("--dtypes", default="float16,bfloat16", help="comma list of input types (default float16,bfloat16)")
    ap.add_argument("--near", type=float, default=1.2,
                    help="keep shapes where either time is within this factor of the best (default 1.2)")
    ap.add_argument("--tileplan", default=str(ROOT / "build" / "release" / "tileplan"))
    a = ap.parse_args()
    keys = tile_and_stages(a.tile, a.stages, fail)
    stages = a.stages.split(",")
    if not re.fullmatch(r"[rc][rc]", a.layouts):
        fail(f"--layouts {a.layouts!r}: two of r and c (A's layout, then B's), e.g. rr")
    dtypes = a.dtypes.split(",")
    if not all(d in TYPES for d in dtypes):
        fail(f"--dtypes {a.dtypes!r}: a comma list of {', '.join(TYPES)}")
    if not (math.isfinite(a.near) and a.near >= 1.0):
        fail(f"--near {a.near}: must be a finite number of at least 1")
    bm, bn, bk, w = re.match(r"(\d+)x(\d+)x(\d+)_w(\d+)", a.tile).groups()
    full = {"r": "row", "c": "col"}
    lay = (full[a.layouts[0]], full[a.layouts[1]])
    every = [d for d in sorted(glob.glob(str(ROOT / "data/h200-triton*")))
             if "repeat" not in os.path.basename(d) and os.path.isfile(f"{d}/timings.jsonl")]
    cases = {}
    for ds in a.datasets or every:
        if not os.path.isfile(f"{ds}/timings.jsonl"):
            fail(f"{ds}: no timings.jsonl (a dataset directory of the harness)")
        for m, n, k, dtype, al, bl, key, ms in rows(f"{ds}/timings.jsonl", fail):
            if dtype in dtypes and (al, bl) == lay:
                cases.setdefault((m, n, k, dtype, os.path.basename(ds.rstrip("/"))), {})[key] = ms
    lines, by = [], {b: [] for b in BUCKETS}
    for (m, n, k, dtype, ds), t in sorted(cases.items()):
        if not all(key in t for key in keys) or min(t[keys[0]], t[keys[1]]) > a.near * min(t.values()):
            continue
        plan = tile_json([a.tileplan, "tile", "--m", str(m), "--n", str(n), "--k", str(k), "--dtype", dtype,
                          "--a-layout", lay[0], "--b-layout", lay[1], "--block-m", bm, "--block-n", bn,
                          "--block-k", bk, "--stages", ",".join(stages), "--threads", str(32 * int(w)),
                          "--topk", "0", "--format", "json"], fail, f"{m}x{n}x{k}")
        pred = {int(c["stages"]): c for c in plan["candidates"]}
        if not all(int(s) in pred for s in stages):
            continue
        predicted = pred[int(stages[0])]["predicted_us"] / pred[int(stages[1])]["predicted_us"]
        measured = t[keys[0]] / t[keys[1]]
        programs = pred[int(stages[0])]["grid"]
        bucket = next(b for b in BUCKETS if b[0] <= programs <= b[1])
        by[bucket].append(measured / predicted)
        lines.append(f"{m}x{n}x{k} {dtype} {programs} programs: measured {measured:.3f}, predicted "
                     f"{predicted:.3f}, measured / predicted {measured / predicted:.3f}  ({ds})")
    if not lines:
        fail(f"no shape measured {keys[0]} and {keys[1]} within {a.near}x of its best")
    print("\n".join(lines))
    print(f"\n{keys[0]} over {keys[1]}, measured over predicted, by the grid's programs:")
    for b, xs in by.items():
        if xs:
            print(f"{b[2]}: {len(xs)} shape(s), median {statistics.median(xs):.3f}, "
                  f"{min(xs):.3f} to {max(xs):.3f}")


if __name__ == "__main__":
    main()
