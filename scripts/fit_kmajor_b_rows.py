#!/usr/bin/env python3
"""Fit kmajor_b_row_dram_share: the DRAM time a K-major B's short rows cost.

With B stored K-major (`nn.Linear`'s weight, b_layout col) each row of B a
stage copies is block_K elements long, and only its own program reads it;
with B row-major the programs beside it read the rest of each line at the
same step. Measured side by side (data/h200-triton-splitk-layout-pairs, the
same nine 16-bit decode steps in both layouts), the block_K 64 tiles (rows
of 128 bytes) run about 4% slower against the block_K 128 ones than the
model predicts with B K-major, and not with B row-major. Where a stage's
rows of B (block_K x element size) are shorter than 256 bytes, the term adds
share x (B's DRAM bytes / all) / tiles_m to DRAM's factor (docs/model.md §3,
"Short rows of a K-major B").

The fit is a residual match, not a regret search (the picks leave block_K
64 at any share from about 0.05, so regret alone cannot place it): for each
share of the grid, every configuration of the calibration datasets gets
r = log(measured / predicted time), less its shape's median r; the fit is
the share at which the median r of the block_K 64 configurations comes
closest to that of the block_K 128 ones. The script then scores the
calibration and held-out datasets (first-pick regret) at the fit and with
the term off. Standard library only:

    python3 scripts/fit_kmajor_b_rows.py [--shares 0,0.02,...] [--calibration DIR,...]
        [--held-out DIR,...] [--family-file FILE] [--device h200] [--tileplan PATH]

Default calibration: the B K-major half of data/h200-triton-splitk-layout-
pairs; held out: data/h100-triton-splitk-linear and -h200-triton-splitk-
linear (never fitted on).
"""

from __future__ import annotations

import json
import math
import pathlib
import statistics
import subprocess
import tempfile

from harness_io import SPLIT_KEY, family_file, number_list, refusal, split_grids, split_plan

ROOT = pathlib.Path(__file__).resolve().parent.parent
CALIBRATION = tuple(f"h200-triton-splitk-layout-pairs/{g}-rc" for g in ("m", "one", "bf16-m", "bf16-one"))
HELD_OUT = tuple(f"h100-triton-splitk-linear/{g}" for g in ("one", "m", "m16", "bf16-one", "bf16-m", "bf16-m16")) + \
    tuple(f"h200-triton-splitk-linear/{g}" for g in ("one", "m", "m16", "m16-rest", "bf16-one", "bf16-m",
                                                     "bf16-m16", "bf16-m16-rest"))
NAME = "kmajor_b_row_dram_share"

fail, Parser = refusal("fit_kmajor_b_rows.py")


def datasets(flag: str, text: str | None, default: tuple) -> list[str]:
    dirs = text.split(",") if text else [str(ROOT / "data" / d) for d in default]
    for d in dirs:
        if not (pathlib.Path(d) / "timings.jsonl").is_file():
            fail(f"{flag}: {d}: no timings.jsonl (a dataset of bench/gpu/triton_splitk_harness.py)")
    return dirs


def with_share(family: dict, share: float) -> dict:
    trial = json.loads(json.dumps(family))
    trial["time"]["constants"].setdefault(NAME, {"fitted_on": "trial"})["value"] = share
    return trial


class Trial:
    """A family written to a temporary file for as long as the block runs."""

    def __init__(self, family: dict):
        self.family = family

    def __enter__(self) -> str:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(self.family, f)
        self.path = pathlib.Path(f.name)
        return str(self.path)

    def __exit__(self, *exc) -> None:
        self.path.unlink()


def residual_medians(tileplan: str, family: dict, grids: dict, device: str) -> tuple[float, float, int]:
    """The median shape-centred log(measured / predicted) of the block_K 64 and
    block_K 128 configurations, and how many configurations were paired."""
    by_k = {64: [], 128: []}
    with Trial(family) as path:
        for case, times in grids.items():
            cand = split_plan(tileplan, case, list(times), fail, ["--family-file", path, "--device", device])
            pts = [(math.log(ms * 1e3 / cand[key]["predicted_us"]), int(SPLIT_KEY.match(key).group(3)))
                   for key, ms in times.items() if key in cand]
            if not pts:
                continue
            mid = statistics.median(r for r, _ in pts)
            for r, bk in pts:
                if bk in by_k:
                    by_k[bk].append(r - mid)
    if not by_k[64] or not by_k[128]:
        fail("the calibration datasets need configurations of block_K 64 and 128")
    return statistics.median(by_k[64]), statistics.median(by_k[128]), len(by_k[64]) + len(by_k[128])


def gpu_of(d: str) -> str:
    try:
        return str(json.loads((pathlib.Path(d) / "meta.json").read_text()).get("gpu"))
    except (OSError, ValueError, AttributeError):
        return "?"


def regret(tileplan: str, family: dict, dirs: list[str]) -> tuple:
    """(top-1 geomean, worst, best-of-top-5 geomean, shapes) of `tileplan validate` under `family`,
    one run per GPU the datasets' meta.json name (each priced with its GPU's preset)."""
    shapes = []
    with Trial(family) as path:
        for gpu in sorted({gpu_of(d) for d in dirs}):
            try:
                p = subprocess.run([tileplan, "validate", *[d for d in dirs if gpu_of(d) == gpu], "--family-file",
                                    path, "--format", "json"], capture_output=True, text=True)
            except OSError as e:
                fail(f"--tileplan {tileplan}: cannot run it ({e.strerror or e})")
            if p.returncode != 0:
                fail(f"tileplan validate: {' '.join(p.stderr.split())[:200]}")
            shapes += json.loads(p.stdout)["shapes"]
    if not shapes:
        fail("the datasets hold no scored shape")
    top1 = [s["calibrated"]["top1_regret"] for s in shapes]
    top5 = [s["calibrated"]["top5_regret"] for s in shapes]
    gm = lambda v: math.exp(sum(math.log(x) for x in v) / len(v))
    return gm(top1), max(top1), gm(top5), len(shapes)


def main() -> int:
    ap = Parser(description=__doc__.split("\n")[0])
    ap.add_argument("--shares", default=",".join(f"{i / 100:g}" for i in range(0, 31, 2)))
    ap.add_argument("--calibration", help="comma list of dataset folders (default: the layout pairs' B K-major half)")
    ap.add_argument("--held-out", help="comma list of dataset folders scored at the fit (default: both linear sets)")
    ap.add_argument("--family-file", default=str(ROOT / "data/families/triton.json"))
    ap.add_argument("--device", default="h200", help="the preset that prices the calibration datasets")
    ap.add_argument("--tileplan", default=str(ROOT / "build/release/tileplan"))
    a = ap.parse_args()
    shares = number_list("--shares", a.shares, 0, 10, fail)
    cal = datasets("--calibration", a.calibration, CALIBRATION)
    held = datasets("--held-out", a.held_out, HELD_OUT)
    family = family_file(a.family_file, fail)
    grids = {}
    for d in cal:
        grids.update(split_grids(pathlib.Path(d) / "timings.jsonl", fail))
    if not grids:
        fail("--calibration: the datasets hold no checked split-K harness case")

    # Everything is computed before anything is printed: a refusal leaves stdout empty.
    out = [f"calibration: {len(grids)} shapes of {len(cal)} datasets; median measured / predicted time, "
           "each shape's median 1", f"{'share':>6} {'block_K 64':>10} {'block_K 128':>11} {'gap':>7}"]
    best = None
    for share in shares:
        k64, k128, _ = residual_medians(a.tileplan, with_share(family, share), grids, a.device)
        gap = k64 - k128
        out.append(f"{share:6g} {math.exp(k64):10.3f} {math.exp(k128):11.3f} {math.exp(gap):7.3f}")
        if best is None or abs(gap) < abs(best[1]) - 1e-12:
            best = (share, gap)
    share = best[0]
    out.append(f"fitted: {NAME} {share:g} (the block_K 64 over block_K 128 gap {math.exp(best[1]):.3f})")
    for label, dirs in (("calibration", cal), ("held out", held)):
        r0 = regret(a.tileplan, with_share(family, 0), dirs)
        r1 = regret(a.tileplan, with_share(family, share), dirs)
        out.append(f"{label}: {r1[3]} shapes: top-1 {r0[0]:.4f} / {r0[1]:.3f} -> {r1[0]:.4f} / {r1[1]:.3f}, "
                   f"best of top 5 {r0[2]:.4f} -> {r1[2]:.4f}")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
