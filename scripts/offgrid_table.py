#!/usr/bin/env python3
"""The table of data/h200-triton-v13/README.md: per input type, the time of the
wide space's first pick, of the best of its first three and of the first pick
within the grid, over the time of the grid's best, all from v13's one run.

  PYTHONPATH=build/release/python python3 scripts/offgrid_table.py

The picks come from the model as built and the grid's best from the case's
own dataset, as scripts/offgrid_cases.py finds them; every time is v13's.
"""

import collections
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import offgrid_cases  # noqa: E402  (GRID, WIDE, key)
import tileplan  # noqa: E402


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main():
    measured = collections.defaultdict(dict)
    with open("data/h200-triton-v13/timings.jsonl") as f:
        for line in f:
            t = json.loads(line)
            if t.get("ms") is None or t["key"] == "cublas":
                continue
            lay = t["a_layout"][0] + t["b_layout"][0]
            measured[f"{t['M']}x{t['N']}x{t['K']}:{t['dtype']}:{lay}"][t["key"]] = t["ms"]
    rows = collections.defaultdict(list)
    for name, (wide, grid, best) in offgrid_cases.offgrid_cases().items():
        d = measured[name]
        ref = d[best]
        kind = {"float16": "fp16", "tfloat32": "tf32"}.get(name.split(":")[1], "fp8")
        rows[kind].append((d[wide[0]] / ref, min(d[x] for x in wide) / ref, d[grid] / ref))
    rows["all"] = [r for kind in list(rows) for r in rows[kind]]
    print("| cases | wide-space first pick: geomean / worst | best of its first 3 | first pick within the grid: geomean / worst |")
    print("|---|---|---|---|")
    for kind in ("fp16", "tf32", "fp8", "all"):
        r = rows[kind]
        print(f"| {kind} ({len(r)}) | {geomean([x[0] for x in r]):.3f} / {max(x[0] for x in r):.3f} | "
              f"{geomean([x[1] for x in r]):.3f} | {geomean([x[2] for x in r]):.3f} / {max(x[2] for x in r):.3f} |")


if __name__ == "__main__":
    main()
