#!/usr/bin/env python3
"""Fit mma_copy_warp_power: how an mma tile's copy-rate cap grows with its warps.

One block streaming its stages with cp.async draws more bytes a cycle with
more warps to issue the copies (data/h200-profile-sm-copy: 4 -> 8 warps,
x1.21 to x1.52, a power of 0.28 to 0.61), and a lone 16-row program at
M = 1 runs faster with 8 warps than with 4 (data/h200-profile-decode-l2).
The model caps the rate at which one program's stage arrives at
mma_copy_bytes_per_cycle; the constant scales that cap by
(warps / 4)^power on the tiles that compile to mma.sync (docs/model.md §3,
"mma tiles").

For each power of the grid the script writes a trial family file, runs
`tileplan validate` over the calibration datasets and prints the first
pick's regret (geomean and worst), the best of the top 5 and the mean rank
correlation; the fit is the point of least top-1 geomean (ties at four
decimals: the best of the top 5, then the smaller power). It then scores
the held-out datasets at the fit and with the power 0. Standard library only:

    python3 scripts/fit_mma_copy_warps.py [--powers 0,0.25,...]
        [--calibration DIR,...] [--held-out DIR,...] [--family-file FILE] [--output FILE]

Default calibration and held-out sets: fit_mma_flight.py's (the decode-tile
sets data/h200-triton-splitk-bm16, -bm16-fresh and -bm16-again; held out
-bm16-cap and -bm16-types).
"""

from __future__ import annotations

import json
import pathlib

import fit_mma_flight as flight
from fit_mma_flight import numbers, score
from harness_io import refusal

fail, Parser = refusal("fit_mma_copy_warps.py")
flight.fail = fail  # the shared helpers refuse in this script's name


def with_power(family: dict, power: float) -> dict:
    trial = json.loads(json.dumps(family))
    trial["time"]["constants"].setdefault("mma_copy_warp_power", {"fitted_on": "trial"})["value"] = power
    return trial


def main() -> int:
    ap = Parser(description=__doc__.split("\n")[0])
    ap.add_argument("--powers", default="0,0.25,0.5,0.75,1,1.25,1.5")
    flight.add_common(ap)
    ap.add_argument("--device", default="h200", help="the preset that prices the calibration datasets")
    ap.add_argument("--held-out-device", help="the preset that prices the held-out datasets (default: --device)")
    ap.add_argument("--output", help="write the family with the fitted power there")
    a = ap.parse_args()
    powers = numbers("--powers", a.powers, 0, 4)
    cal, held, family = flight.common(a)

    device = a.held_out_device or a.device
    base = score(a.tileplan, with_power(family, 0), cal, a.device)  # these refuse before anything is printed
    h0 = score(a.tileplan, with_power(family, 0), held, device)
    rows = [(power, score(a.tileplan, with_power(family, power), cal, a.device)) for power in powers]
    print(f"calibration: {base[4]} shapes of {len(cal)} datasets; top-1 geomean / worst, best of top 5, rank correlation")
    print(f"{'power':>6} {'top-1':>7} {'worst':>7} {'top-5':>7} {'rho':>6}")
    for power, s in rows:
        print(f"{power:6g} {s[0]:7.4f} {s[1]:7.3f} {s[2]:7.4f} {s[3]:6.3f}")
    power, s = min(rows, key=lambda r: (round(r[1][0], 4), round(r[1][2], 4), r[0]))
    print(f"fitted: mma_copy_warp_power {power:g} (calibration top-1 {base[0]:.4f} -> {s[0]:.4f}, "
          f"best of top 5 {base[2]:.4f} -> {s[2]:.4f})")
    h1 = score(a.tileplan, with_power(family, power), held, device)
    print(f"held out: {h1[4]} shapes of {len(held)} datasets: top-1 {h0[0]:.4f} / {h0[1]:.3f} -> {h1[0]:.4f} / "
          f"{h1[1]:.3f}, best of top 5 {h0[2]:.4f} -> {h1[2]:.4f}, rank correlation {h0[3]:.3f} -> {h1[3]:.3f}")
    if a.output:
        pathlib.Path(a.output).write_text(json.dumps(with_power(family, power), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
