#!/usr/bin/env python3
"""Fit aligned_b_stage_share on the row-stride sweep (data/h100-profile-row-stride).

The constant adds, per stage beyond two, a share of every main-loop step of a
kernel whose B alone goes through registers with N contiguous, whose B rows
start 16-byte aligned and which spills registers (docs/model.md §3). The sweep
timed 256x64x64 with 4 warps (255 registers, 88 spilled) at 2 and 3 stages
over every row stride of B; on the strides whose rows are 16-byte aligned
(ldb = 8 mod 16: one binary with the others) the script compares the
measured 3-stage over 2-stage ratio with the model's, planned on the sweep's
device (`h100-sxm`) with the stride given (--ldb), for each value of a grid,
and prints the geometric mean of measured over predicted and the mean |log|.
The value with the least mean |log| is the fit; the other constants are held.

    python3 scripts/fit_aligned_b_stage.py [--values 0,0.01,...] [--write]
        [--family-file data/families/triton.json] [--tileplan build/release/tileplan] [PROBE.jsonl ...]

Default probes: data/h100-profile-row-stride/probe-*.jsonl (each a run; a
case's time is the median of its rounds, a stride's ratio the median over
the runs). --write puts the fitted value into the family file.
"""

from __future__ import annotations

import json
import math
import pathlib
import statistics
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from harness_io import probe_medians, refusal, tile_json  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAX_VALUES = 1001  # each value plans every stride: a bound on the run time
FITTED_ON = ("scripts/fit_aligned_b_stage.py: least mean |log| of measured over predicted 3-stage over 2-stage "
             "time of 256x64x64 with 4 warps on the strides of data/h100-profile-row-stride whose B rows are "
             "16-byte aligned (14 strides, two runs; planned as h100-sxm), every other constant held")


def parse_values(text, fail):
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        fail(f"--values: '{text}' is not a comma list of numbers")
    if not values or any(not 0 <= v <= 1 for v in values):
        fail(f"--values: every value must be between 0 and 1, got '{text}'")
    if len(values) > MAX_VALUES:
        fail(f"--values: at most {MAX_VALUES} values, got {len(values)}")
    return values


def measured_ratios(paths, fail):
    """{(M, N, K, ldb): median over runs of (3-stage median / 2-stage median)} for 16-byte-aligned rows."""
    per_run = []
    for path in paths:
        med = probe_medians(path, fail)
        ratios = {}
        for ((m, n, k, ldb, ldc), key), ms in med.items():
            two = med.get(((m, n, k, ldb, ldc), "256x64x64_s2_w4"))
            if key == "256x64x64_s3_w4" and two and ldb % 16 == 8 and ldc == n:
                ratios[(m, n, k, ldb)] = ms / two
        per_run.append(ratios)
    common = set.intersection(*(set(r) for r in per_run)) if per_run else set()
    if not common:
        fail("no stride with 16-byte-aligned rows timed at 2 and 3 stages of 256x64x64_w4 in every probe file")
    return {case: statistics.median(r[case] for r in per_run) for case in sorted(common)}


def predicted_ratio(tileplan, family_path, case, fail):
    m, n, k, ldb = case
    args = [tileplan, "tile", "--m", str(m), "--n", str(n), "--k", str(k), "--ldb", str(ldb), "--device", "h100-sxm",
            "--block-m", "256", "--block-n", "64", "--block-k", "64", "--stages", "2,3", "--threads", "128",
            "--instr", "wgmma", "--topk", "0", "--format", "json", "--family-file", str(family_path)]
    plan = tile_json(args, fail, f"{m}x{n}x{k} ldb {ldb}")
    t = {c["stages"]: c["predicted_us"] for c in plan["candidates"]}
    if 2 not in t or 3 not in t:
        fail(f"{case}: tileplan found 256x64x64 with 2 or 3 stages infeasible")
    return t[3] / t[2]


def main():
    fail, Parser = refusal("fit_aligned_b_stage.py")
    ap = Parser(description=__doc__.split("\n")[0])
    ap.add_argument("probes", nargs="*")
    ap.add_argument("--values", default=",".join(f"{i / 100:g}" for i in range(0, 31)))
    ap.add_argument("--family-file", default=str(ROOT / "data/families/triton.json"))
    ap.add_argument("--tileplan", default=str(ROOT / "build/release/tileplan"))
    ap.add_argument("--write", action="store_true", help="write the fitted value into --family-file")
    args = ap.parse_args()
    values = parse_values(args.values, fail)
    paths = args.probes or sorted(str(p) for p in (ROOT / "data/h100-profile-row-stride").glob("probe-*.jsonl"))
    if not paths:
        fail("no probe files given and none in data/h100-profile-row-stride")
    measured = measured_ratios(paths, fail)
    try:
        family = json.loads(pathlib.Path(args.family_file).read_text(encoding="utf-8"))
        constants = family["time"]["constants"]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as e:
        fail(f"--family-file {args.family_file}: not a family file with time.constants ({e})")
    own = constants.get("aligned_b_stage_share", {}) if isinstance(constants, dict) else None
    if not isinstance(own, dict) or not isinstance(own.get("value", 0.0), (int, float)):
        fail(f"--family-file {args.family_file}: time.constants must be an object whose aligned_b_stage_share, "
             "if present, is an object with a numeric value")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        trial_path = pathlib.Path(tmp) / "family.json"
        for v in values:
            trial = json.loads(json.dumps(family))
            trial["time"]["constants"]["aligned_b_stage_share"] = {"value": v, "fitted_on": "trial"}
            trial_path.write_text(json.dumps(trial))
            logs = [math.log(measured[c] / predicted_ratio(args.tileplan, trial_path, c, fail)) for c in measured]
            results.append((v, math.exp(sum(logs) / len(logs)), sum(abs(x) for x in logs) / len(logs)))
    print(f"{len(measured)} strides with 16-byte-aligned rows; measured 3 stages over 2: "
          f"{min(measured.values()):.3f} to {max(measured.values()):.3f}")
    print(f"{'value':>6} {'geomean meas/pred':>18} {'mean |log|':>11}")
    best = None
    for v, gm, mal in results:
        print(f"{v:6g} {gm:18.4f} {mal:11.4f}")
        if best is None or mal < best[0] - 1e-12:
            best = (mal, v)
    print(f"best: aligned_b_stage_share {best[1]:g} (mean |log| {best[0]:.4f}); "
          f"the family file's {own.get('value', 0.0):g}")
    if args.write:
        constants["aligned_b_stage_share"] = {"value": best[1], "fitted_on": FITTED_ON}
        pathlib.Path(args.family_file).write_text(json.dumps(family, indent=2, ensure_ascii=False) + "\n",
                                                 encoding="utf-8")


if __name__ == "__main__":
    main()
