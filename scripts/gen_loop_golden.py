#!/usr/bin/env python3
"""Golden data for `tileplan loop`, computed by the reference loop_mapping.py.

Writes tests/golden/loop_plan.json (every point's (thread, slot) for a set of
nests) and tests/golden/loop_compare.json (the reference's comparison of nest
shapes, read back from what it prints). Standard library only; the tests read
the JSON and need no Python. Run from anywhere:

    python3 scripts/gen_loop_golden.py [REFERENCE_DIR]

REFERENCE_DIR is the folder holding the reference scripts (loop_mapping.py);
by default ../shared/reference beside the repository. Regenerating reproduces
the committed files byte for byte (check with `git diff tests/golden`).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import sys
from itertools import product
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_REFERENCE = REPO / ".." / "shared" / "reference"

# (extents, threads, vector): every vector divides the innermost extent.
CASES = [
    ((128, 32), 128, 8),   # the reference's default
    ((128, 32), 128, 4),   # its second example
    ((64,), 128, 2),       # its third: fewer groups than threads
    ((128, 32), 128, 1),
    ((8, 8), 8, 2),
    ((4, 4, 4), 8, 2),
    ((32, 2), 8, 2),
    ((2, 32), 8, 2),
    ((33,), 32, 1),        # a partial last round
    ((100, 40), 128, 4),   # 1000 groups on 128 threads
    ((3, 5, 7), 16, 1),
    ((6, 10), 7, 2),       # threads not a power of two
    ((2, 3, 4, 5), 4, 5),  # vector not a power of two
    ((1,), 1, 1),
    ((16, 16), 256, 4),
    ((5, 12), 3, 4),
    ((17, 24), 32, 8),
    ((2, 2, 2, 2, 2, 2), 4, 2),
    ((64, 64), 128, 4),
]


def load_reference(directory: Path):
    script = directory / "loop_mapping.py"
    if not script.is_file():
        raise SystemExit(f"{script}: no such file; give the folder holding the reference scripts")
    sys.path.insert(0, str(directory.resolve()))
    import loop_mapping  # noqa: E402  (the reference, by path)

    return loop_mapping


def plan_case(ref, extents, threads, vector):
    mapping = ref.plan(tuple(extents), threads, vector)
    flat_pairs = []
    for index in product(*(range(e) for e in extents)):  # flat order
        thread, slot = mapping[index]
        flat_pairs += [thread, slot]
    return {"extents": list(extents), "threads": threads, "vector": vector, "map": flat_pairs}


TOTAL = re.compile(r"T\.Parallel(\([0-9, ]*\))\s+total=(\d+)\s+threads=(\d+)\s+per-thread=(\d+)")
OWNS = re.compile(r"thread (\d+) owns (.*) \.\.\.")
POINT = re.compile(r"\(([0-9, ]*)\)")


def compare_case(ref):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        ref.compare_shapes()
    shapes = []
    for line in buf.getvalue().splitlines():
        m = TOTAL.search(line)
        if m:
            extents = [int(x) for x in m.group(1).strip("()").split(",") if x.strip()]
            shapes.append({"extents": extents, "points": int(m.group(2)), "threads_used": int(m.group(3)),
                           "points_per_thread": int(m.group(4)), "owned": []})
            continue
        m = OWNS.search(line)
        if m:
            pts = [[int(x) for x in p.split(",") if x.strip()] for p in POINT.findall(m.group(2))]
            shapes[-1]["owned"].append(pts)
    if len(shapes) != 5 or any(len(s["owned"]) != 2 for s in shapes):
        raise SystemExit("the reference's comparison did not parse as five shapes with two threads each")
    return {"threads": 8, "vector": 2, "shapes": shapes}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reference", nargs="?", type=Path, default=None,
                        help=f"folder holding loop_mapping.py (default: {DEFAULT_REFERENCE})")
    parser.add_argument("--reference", dest="reference_flag", type=Path, default=None, help="the same, as a flag")
    args = parser.parse_args()
    if args.reference and args.reference_flag and args.reference != args.reference_flag:
        parser.error("give the reference folder once")
    ref = load_reference(args.reference or args.reference_flag or DEFAULT_REFERENCE)
    out = REPO / "tests" / "golden"
    out.mkdir(parents=True, exist_ok=True)
    plan = {"generator": "scripts/gen_loop_golden.py", "reference": "loop_mapping.py plan()",
            "cases": [plan_case(ref, *c) for c in CASES]}
    (out / "loop_plan.json").write_text(json.dumps(plan, separators=(",", ":")) + "\n")
    compare = {"generator": "scripts/gen_loop_golden.py", "reference": "loop_mapping.py compare_shapes()",
               **compare_case(ref)}
    # One shape a line, so that a change shows as a readable diff.
    shapes = ",\n  ".join(json.dumps(s, separators=(",", ":")) for s in compare.pop("shapes"))
    head = json.dumps(compare, separators=(",", ":"))[:-1]
    (out / "loop_compare.json").write_text(f'{head},"shapes":[\n  {shapes}\n]}}\n')
    print(f"wrote {len(CASES)} plan cases and the shape comparison to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
