#!/usr/bin/env python3
"""Fit mma_rate_share: the share of the tensor rate a tile compiled to mma.sync reaches.

A tile of 16 or 32 rows compiles to mma.sync, a 64-row or larger one to
wgmma, and the device's peak is wgmma's. Over grids that measure both kinds
of tile on the same shapes, the model's predicted times of the wgmma tiles
set the scale; mma_rate_share is the share at which the mma tiles' median
measured / predicted time equals the wgmma tiles' on the same shapes (every
other constant held). Only shapes with M >= --min-m count: there both kinds
compete and the MMAs weigh in a step (at decode sizes, M < 16, a stage's
bytes bind and the share changes little).

For each share of the grid the script runs `tileplan tile` over each shape's
measured configurations (unsplit and split, the harness's `workspace`
variant), prints the two medians and their gap, and interpolates the share
where the gap crosses zero. Standard library only:

    python3 scripts/fit_mma_rate.py [--shares 0.4,0.45,...] [--min-m 48] [--device h200]
        [--family-file data/families/triton.json] [--output FILE] [DATASET...]

Default dataset: data/h200-triton-splitk-bm16-fresh/guard (M = 16 to 512,
block_M 16 to 128, split 1, 2, 4).
"""

from __future__ import annotations

import json
import math
import pathlib
import statistics
import tempfile

from harness_io import family_file, refusal, split_grids, split_plan

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_DATASETS = ("data/h200-triton-splitk-bm16-fresh/guard",)

fail, Parser = refusal("fit_mma_rate.py")


def shares(text: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        fail(f"--shares {text!r}: not a comma list of numbers")
    if not values or len(values) > 200 or any(not 0 < v <= 1 for v in values):
        fail(f"--shares {text!r}: 1 to 200 shares, each above 0 and at most 1")
    return sorted(set(values))


def measured(dataset: str, min_m: int) -> dict:
    """{(M, N, K, dtype): {key: ms}} of the checked split-K harness rows with M >= min_m."""
    path = pathlib.Path(dataset) / "timings.jsonl"
    if not path.is_file():
        fail(f"{path}: no such file (a dataset of bench/gpu/triton_splitk_harness.py)")
    return {(m, n, k, dtype): grid for (m, n, k, dtype, _, _), grid in split_grids(path, fail).items() if m >= min_m}


def log_ratios(tileplan: str, family: pathlib.Path, device: str, grids: dict) -> dict:
    """{"mma": [...], "wgmma": [...]}: log(measured / predicted) of every measured configuration."""
    out = {"mma": [], "wgmma": []}
    for case, rows in grids.items():
        plan = split_plan(tileplan, case, rows, fail, ("--family-file", str(family), "--device", device))
        for key, c in plan.items():
            if key in rows:
                out["mma" if c["instr"] == "mma" else "wgmma"].append(math.log(rows[key] * 1e3 / c["predicted_us"]))
    return out


def main() -> int:
    ap = Parser(description=__doc__.split("\n")[0])
    ap.add_argument("datasets", nargs="*", default=[str(ROOT / d) for d in DEFAULT_DATASETS])
    ap.add_argument("--shares", default="0.4,0.45,0.5,0.525,0.55,0.6,0.7,0.8,0.9,1")
    ap.add_argument("--min-m", type=int, default=48)
    ap.add_argument("--family-file", default=str(ROOT / "data/families/triton.json"))
    ap.add_argument("--tileplan", default=str(ROOT / "build/release/tileplan"))
    ap.add_argument("--device", default="h200", help="the preset that prices the datasets (h100-sxm for an H100's)")
    ap.add_argument("--output", help="write the family with the fitted share there")
    a = ap.parse_args()
    grid = shares(a.shares)
    if not 1 <= a.min_m <= 1 << 30:
        fail(f"--min-m {a.min_m}: from 1 to 2^30")
    family = family_file(a.family_file, fail)
    constants = family["time"]["constants"]
    grids: dict = {}
    for d in a.datasets:
        grids.update(measured(d, a.min_m))
    if not grids:
        fail(f"the datasets hold no checked split-K harness rows with M >= {a.min_m}")

    print(f"{len(grids)} shapes with M >= {a.min_m} ({' '.join(a.datasets)}); measured / predicted, medians:")
    print(f"{'share':>6} {'mma':>7} {'wgmma':>7} {'gap':>7}  (mma rows, wgmma rows)")
    gaps = []
    for s in grid:
        trial = json.loads(json.dumps(family))
        trial["time"]["constants"].setdefault("mma_rate_share", {"fitted_on": "trial"})["value"] = s
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(trial, f)
        path = pathlib.Path(f.name)
        try:
            r = log_ratios(a.tileplan, path, a.device, grids)
        finally:
            path.unlink()
        if not r["mma"] or not r["wgmma"]:
            fail("the datasets must measure tiles of both kinds (block_M 16 or 32, and 64 or more) on the same shapes")
        mma, wg = statistics.median(r["mma"]), statistics.median(r["wgmma"])
        gaps.append((s, mma - wg))
        print(f"{s:6.3f} {math.exp(mma):7.4f} {math.exp(wg):7.4f} {mma - wg:+7.4f}  ({len(r['mma'])}, {len(r['wgmma'])})")
    fitted = None
    for (s0, g0), (s1, g1) in zip(gaps, gaps[1:]):
        if g0 <= 0 <= g1 or g1 <= 0 <= g0:
            fitted = s0 if g1 == g0 else s0 + (s1 - s0) * (0 - g0) / (g1 - g0)
            break
    own = constants.get("mma_rate_share", {}).get("value", 0.0)
    if fitted is None:
        print(f"no share of the grid closes the gap; the family's own: {own:g}")
        return 1
    print(f"fitted: mma_rate_share {fitted:.3f} (the gap interpolated to 0); the family's own: {own:g}")
    if a.output:
        constants.setdefault("mma_rate_share", {})["value"] = round(fitted, 3)
        pathlib.Path(a.output).write_text(json.dumps(family, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
