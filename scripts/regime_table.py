#!/usr/bin/env python3
"""The README's per-regime table: how good the first pick is, per problem class.

Runs `tileplan validate --format json` on the given datasets (held-out cases
only by default) and prints one Markdown row per class (input type, layouts,
which of M, N, K are multiples of 16) and one for all cases:

  calibrated top-1 regret (geomean / worst), best of its top 5 (geomean),
  the calibrated pick's measured over predicted time (geomean: how far the
  microseconds the model prints are), the seed model's top-1 regret, and a fixed default configuration's regret
  (128x256x64, 4 stages, 8 warps, unless --default says otherwise; "refused"
  where the compiler refused it for that class).

A regret is the measured time of the pick over the best measured time of the
grid. Standard library only:

  python3 scripts/regime_table.py data/h200-triton-v5a data/h200-triton-v5b
  python3 scripts/regime_table.py --split all --tileplan build/release/tileplan data/h200-triton-v6
"""

import argparse
import json
import math
import subprocess
import sys


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def load_times(dataset, key):
    """(case name) -> measured ms of configuration `key`, from timings.jsonl."""
    out = {}
    with open(f"{dataset}/timings.jsonl") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            if r["key"] != key:
                continue
            dtype, la, lb = r.get("dtype", "float16"), r.get("a_layout", "row"), r.get("b_layout", "row")
            name = f"{r['M']}x{r['N']}x{r['K']}"
            if (dtype, la, lb) != ("float16", "row", "row"):
                name += f":{dtype}:{la[0]}{lb[0]}"
            out[name] = r["ms"]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("datasets", nargs="+")
    ap.add_argument("--split", default="heldout", choices=["heldout", "calibration", "all"])
    ap.add_argument("--tileplan", default="build/release/tileplan")
    ap.add_argument("--family-file", help="score this family file's calibrated model instead of the built-in triton family")
    ap.add_argument("--default", default="128x256x64_s4_w8", help="the fixed configuration to compare with")
    args = ap.parse_args()

    extra = ["--family-file", args.family_file] if args.family_file else []
    run = subprocess.run([args.tileplan, "validate", *args.datasets, "--split", args.split, "--format", "json", *extra],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"regime_table: tileplan validate failed: {run.stderr.strip()}")
    report = json.loads(run.stdout)
    fixed = {}
    for d in args.datasets:
        for name, ms in load_times(d, args.default).items():
            fixed[(d, name)] = ms

    groups = {}
    for s in report["shapes"]:
        groups.setdefault(s["group"], []).append(s)

    print(f"| class | cases | calibrated top-1 (geomean / worst) | best of top 5 | pick's time / predicted | "
          f"seed top-1 | fixed {args.default} |")
    print("|---|---|---|---|---|---|---|")

    def row(label, shapes):
        top1 = [s["calibrated"]["top1_regret"] for s in shapes]
        top5 = [s["calibrated"]["top5_regret"] for s in shapes]
        seed = [s["seed"]["top1_regret"] for s in shapes]
        ratio = [s["pick_ms"] / s["pick_predicted_ms"] for s in shapes if s.get("pick_predicted_ms")]
        ratio_text = f"{geomean(ratio):.2f}" if ratio else "-"
        fix = [fixed[(s["dataset"], s["shape"])] / s["best_ms"] for s in shapes
               if (s["dataset"], s["shape"]) in fixed]
        fix_text = (f"{geomean(fix):.3f} / {max(fix):.2f}" if len(fix) == len(shapes)
                    else "refused" if not fix else f"{geomean(fix):.3f} / {max(fix):.2f} ({len(fix)} of {len(shapes)})")
        print(f"| {label} | {len(shapes)} | {geomean(top1):.3f} / {max(top1):.3f} | {geomean(top5):.3f} | "
              f"{ratio_text} | {geomean(seed):.2f} / {max(seed):.2f} | {fix_text} |")

    for g, shapes in groups.items():
        row(f"`{g}`", shapes)
    row("**all**", report["shapes"])


if __name__ == "__main__":
    main()
