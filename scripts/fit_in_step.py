#!/usr/bin/env python3
"""Fit in_step_a_ns (programs walking K in step) with one_row_a_extra, below M = 16.

Where A has M < 16 rows, the Triton kernel's A tile repeats them (block_M / M
copies each), every program requests the same lines of A at once, and the
model adds to each K step of a program's path

    in_step_a_ns x (programs resident at once / split factor) x block_M / M

(docs/model.md §3). The term overlaps A's repeated-row bytes, one_row_a_extra
/ M per byte of A's stage, so the two are fitted together: a grid of both,
every other constant held, scored by `tileplan_fit --time`'s objective (the
weighted squared log error plus a smooth top-1 regret, calibration shapes
only) per input type over the calibration datasets, and joined weighted by
each type's number of calibration shapes. Prints the grid, the best point and
the family's own point, and writes the best into a copy of the family
(--output) with where it came from.

    python3 scripts/fit_in_step.py [--in-step 0.02,0.025,...] [--one-row 3,3.5,...]
        [--family-file data/families/triton.json] [--output FILE] DATASET...

Default datasets: data/h200-triton-mstep (M = 2 to 14) and data/h200-triton-m1a
(M = 1), the calibration cases below M = 16.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
TYPES = ("float16", "bfloat16")
DEFAULT_DATASETS = ("data/h200-triton-mstep", "data/h200-triton-m1a")


def floats(text: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma list of numbers")
    if not values or any(not (0 <= v < 1e6) for v in values):
        raise argparse.ArgumentTypeError(f"'{text}': every value must be a number from 0 to 1e6")
    return values


def fail(message: str) -> None:
    """One line on stderr, exit status 2 (bad input)."""
    print(f"fit_in_step: {message}", file=sys.stderr)
    sys.exit(2)


def calibration_shapes(datasets, dtype: str) -> int:
    """The calibration cases of `dtype` in the datasets (the objective's weight)."""
    n = 0
    for d in datasets:
        path = pathlib.Path(d) / "split.json"
        try:
            split = json.loads(path.read_text())
            cases = split.get("calibration", [])
            if not isinstance(cases, list) or not all(isinstance(c, str) for c in cases):
                raise ValueError("'calibration' must be a list of case names")
        except (OSError, ValueError, AttributeError) as e:
            fail(f"{path}: not a dataset's split.json ({str(e)[:120]})")
        for case in cases:
            parts = case.split(":")
            n += (parts[1] if len(parts) > 1 else "float16") == dtype
    return n


def objective(fit: str, family: pathlib.Path, dtype: str, datasets, names) -> float:
    """tileplan_fit's run-time objective at the family's constants (every one held)."""
    cmd = [fit, "--time", "--device", "h200", "--input-type", dtype, "--family-file", str(family),
           "--iterations", "1", "--restarts", "1"]
    for n in names:
        cmd += ["--fix", n]
    p = subprocess.run(cmd + list(datasets), capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"fit_in_step: {' '.join(cmd[:3])} failed: {p.stderr.strip()[:300]}")
    for line in p.stdout.splitlines():
        if "objective" in line:
            return float(line.split()[-1])
    sys.exit("fit_in_step: tileplan_fit printed no objective")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("datasets", nargs="*", default=list(DEFAULT_DATASETS))
    ap.add_argument("--in-step", type=floats, default=floats("0.02,0.025,0.03,0.035,0.04,0.045,0.05"),
                    help="in_step_a_ns values (ns)")
    ap.add_argument("--one-row", type=floats, default=floats("3,3.5,4,4.5,5"), help="one_row_a_extra values")
    ap.add_argument("--family-file", default=str(ROOT / "data/families/triton.json"))
    ap.add_argument("--fit", default=str(ROOT / "build/release/tileplan_fit"), help="the tileplan_fit binary")
    ap.add_argument("--output", help="write the family with the best point there")
    a = ap.parse_args()
    family = json.loads(pathlib.Path(a.family_file).read_text())
    constants = family["time"]["constants"]
    names = sorted(set(constants) | {"in_step_a_ns"})
    if len(a.in_step) * len(a.one_row) > 10000:
        fail("the grid has more than 10000 points (--in-step values x --one-row values)")
    weights = {t: calibration_shapes(a.datasets, t) for t in TYPES}
    if not sum(weights.values()):
        fail("the datasets have no float16 or bfloat16 calibration case")

    def score(c: float, e: float) -> tuple[float, dict]:
        trial = json.loads(json.dumps(family))
        trial["time"]["constants"].setdefault("in_step_a_ns", {"fitted_on": "trial"})["value"] = c
        trial["time"]["constants"]["one_row_a_extra"]["value"] = e
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(trial, f)
        path = pathlib.Path(f.name)
        try:
            per = {t: objective(a.fit, path, t, a.datasets, names) for t in TYPES if weights[t]}
        finally:
            path.unlink()
        joint = sum(per[t] * weights[t] for t in per) / sum(weights[t] for t in per)
        return joint, per

    print(f"calibration cases: " + ", ".join(f"{t} {weights[t]}" for t in TYPES) + f" ({' '.join(a.datasets)})")
    print(f"{'in_step_a_ns':>12} {'one_row_a_extra':>15} " + " ".join(f"{t:>9}" for t in TYPES) + "     joint")
    best = None
    for e in a.one_row:
        for c in a.in_step:
            joint, per = score(c, e)
            print(f"{c:12.4g} {e:15.4g} " + " ".join(f"{per.get(t, float('nan')):9.5f}" for t in TYPES) +
                  f" {joint:9.5f}")
            if best is None or joint < best[0]:
                best = (joint, c, e)
    own_c = constants.get("in_step_a_ns", {}).get("value", 0.0)
    own_e = constants["one_row_a_extra"]["value"]
    own, _ = score(own_c, own_e)
    off, _ = score(0.0, own_e)
    print(f"best: in_step_a_ns {best[1]:g}, one_row_a_extra {best[2]:g} (joint {best[0]:.5f}); "
          f"the family's own {own_c:g}, {own_e:g}: {own:.5f}; without the term at {own_e:g}: {off:.5f}")
    if a.output:
        constants.setdefault("in_step_a_ns", {})["value"] = best[1]
        constants["one_row_a_extra"]["value"] = best[2]
        pathlib.Path(a.output).write_text(json.dumps(family, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
