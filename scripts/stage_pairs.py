#!/usr/bin/env python3
"""One tile at two stage counts, over every measured shape of a class, grouped by N's alignment.

For each measured shape of the class (input type, layouts, which of M, N, K
are multiples of 16: `tileplan validate`'s class names, e.g. float16:rr:MnK),
the measured time of the tile with the first stage count over its time with
the second, with the shape's N and the largest power of two (up to 8) that
divides N. Shapes where neither time is within --near of the shape's best
are left out (they say nothing about the picks). The last lines summarise
each alignment group: count and range. Standard library only:

  python3 scripts/stage_pairs.py --class float16:rr:MnK --tile 256x64x64_w4 --stages 3,2
"""

import glob
import math
import os
import re

from harness_io import refusal, rows, tile_and_stages

CLASS = re.compile(r"^(float16|bfloat16|float8_e4m3|float8_e5m2|tfloat32):([rc])([rc]):([Mm1])([Nn1])([Kk1])$")


fail, Parser = refusal("stage_pairs.py")


def class_of(m, n, k, dtype, a, b):
    flags = "".join("1" if d == 1 else c if d % 16 == 0 else c.lower() for d, c in zip((m, n, k), "MNK"))
    return f"{dtype}:{a[0]}{b[0]}:{flags}"


def alignment(n):
    """The largest power of two up to 8 that divides n."""
    return max(p for p in (1, 2, 4, 8) if n % p == 0)


def load(datasets, cls):
    """(M, N, K, set) -> {config key: ms} for the packed, unsplit cases of the class."""
    out = {}
    for ds in datasets:
        if not os.path.isfile(f"{ds}/timings.jsonl"):
            fail(f"{ds}: no timings.jsonl (a dataset directory of the harness)")
        for m, n, k, dtype, a, b, key, ms in rows(f"{ds}/timings.jsonl", fail):
            if class_of(m, n, k, dtype, a, b) == cls:
                out.setdefault((m, n, k, ds), {})[key] = ms
    return out


def main():
    ap = Parser(description=__doc__.splitlines()[0])
    ap.add_argument("datasets", nargs="*", help="dataset folders (default: every data/h200-triton*)")
    ap.add_argument("--class", dest="cls", required=True, help="e.g. float16:rr:MnK")
    ap.add_argument("--tile", required=True, help="BMxBNxBK_wW, e.g. 256x64x64_w4")
    ap.add_argument("--stages", required=True, help="two stage counts A,B: the ratio is A's time over B's")
    ap.add_argument("--near", type=float, default=1.3,
                    help="keep shapes where either time is within this factor of the best (default 1.3)")
    a = ap.parse_args()
    if not CLASS.match(a.cls):
        fail(f"--class {a.cls!r}: a class is DTYPE:LL:MNK, e.g. float16:rr:MnK (upper case: a multiple of 16)")
    first, second = tile_and_stages(a.tile, a.stages, fail)
    stages = a.stages.split(",")
    if not (math.isfinite(a.near) and a.near >= 1.0):
        fail(f"--near {a.near}: must be a finite number of at least 1")
    every = [d for d in sorted(glob.glob("data/h200-triton*")) if os.path.isfile(f"{d}/timings.jsonl")]
    cases = load(a.datasets or every, a.cls)
    groups = {}
    lines = []
    for (m, n, k, ds), t in sorted(cases.items()):
        if first not in t or second not in t or min(t[first], t[second]) > a.near * min(t.values()):
            continue
        ratio = t[first] / t[second]
        groups.setdefault(alignment(n), []).append(ratio)
        lines.append(f"{m}x{n}x{k}  N aligned to {alignment(n)}  {ratio:.3f}  "
                     f"{ds.rstrip('/').split('/')[-1]}")
    if not lines:
        fail(f"no shape of class {a.cls} measured {first} and {second} within {a.near}x of its best")
    print("\n".join(lines))
    print(f"\n{first} over {second}, by the largest power of two (up to 8) dividing N:")
    for p, xs in sorted(groups.items()):
        print(f"N aligned to {p}: {len(xs)} shape(s), {min(xs):.2f} to {max(xs):.2f}, "
              f"{sum(x > 1 for x in xs)} slower with {stages[0]} stages")


if __name__ == "__main__":
    main()
