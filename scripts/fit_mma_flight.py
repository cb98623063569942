#!/usr/bin/env python3
"""Fit mma_flight_knee_kb and mma_flight_dram_share: DRAM's efficiency under an mma tile's bytes in flight.

A decode step (M <= 16, the tiles of 16 or 32 rows that compile to
mma.sync) streams B once from DRAM. Measured under Nsight Compute, its DRAM
throughput peaks near 100 KB in flight per SM and falls past it
(data/h200-profile-decode-l2); the model's latency term only improves with
more bytes in flight. The two constants price the fall: DRAM's time times
1 + share x (bytes in flight per SM - knee) / knee past the knee
(docs/model.md §3, "Bytes in flight and DRAM").

For each (knee, share) of the grid the script writes a trial family file,
runs `tileplan validate` over the calibration datasets and prints the
first pick's regret (geomean and worst), the best of the top 5 and the mean
rank correlation; the fit is the point of least top-1 geomean (ties: the
best of the top 5). It then scores the held-out datasets at the fit and
with the term off. Standard library only:

    python3 scripts/fit_mma_flight.py [--knees 32,48,...] [--shares 0.05,...]
        [--calibration DIR,...] [--held-out DIR,...] [--family-file FILE] [--output FILE]

Default calibration: the decode-tile sets data/h200-triton-splitk-bm16,
-bm16-fresh and -bm16-again; held out: -bm16-cap and -bm16-types.
"""

from __future__ import annotations

import json
import math
import pathlib
import subprocess
import tempfile

from harness_io import family_file, number_list, refusal

ROOT = pathlib.Path(__file__).resolve().parent.parent
CALIBRATION = ("bm16/one", "bm16/m", "bm16/m16", "bm16-fresh/one", "bm16-fresh/m", "bm16-fresh/guard",
               "bm16-again/one", "bm16-again/fp8-one", "bm16-again/fp8-m")
HELD_OUT = ("bm16-cap/one", "bm16-cap/m", "bm16-cap/m16", "bm16-cap/bf16-one", "bm16-cap/bf16-m",
            "bm16-cap/bf16-m16", "bm16-cap/fp8-one", "bm16-cap/fp8-m", "bm16-cap/fp8-m16",
            "bm16-types/bf16-one", "bm16-types/bf16-m", "bm16-types/fp8-one", "bm16-types/fp8-m")

fail, Parser = refusal("fit_mma_flight.py")


def numbers(flag: str, text: str, low: float, high: float) -> list[float]:
    return number_list(flag, text, low, high, fail)


def datasets(flag: str, text: str | None, default: tuple) -> list[str]:
    dirs = text.split(",") if text else [str(ROOT / "data" / f"h200-triton-splitk-{d}") for d in default]
    for d in dirs:
        if not (pathlib.Path(d) / "timings.jsonl").is_file():
            fail(f"{flag}: {d}: no timings.jsonl (a dataset of bench/gpu/triton_splitk_harness.py)")
    return dirs


def score(tileplan: str, family: dict, dirs: list[str], device: str) -> tuple:
    """(top-1 geomean, worst, best-of-top-5 geomean, mean rank correlation, shapes) under `family`."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(family, f)
    path = pathlib.Path(f.name)
    try:
        p = subprocess.run([tileplan, "validate", *dirs, "--family-file", str(path), "--device", device,
                            "--format", "json"], capture_output=True, text=True)
    except OSError as e:
        fail(f"--tileplan {tileplan}: cannot run it ({e.strerror or e})")
    finally:
        path.unlink()
    if p.returncode != 0:
        fail(f"tileplan validate: {' '.join(p.stderr.split())[:200]}")
    shapes = json.loads(p.stdout)["shapes"]
    if not shapes:
        fail("the datasets hold no scored shape")
    top1 = [s["calibrated"]["top1_regret"] for s in shapes]
    top5 = [s["calibrated"]["top5_regret"] for s in shapes]
    rho = [s["calibrated"]["spearman"] for s in shapes if s["calibrated"]["spearman"] is not None]
    gm = lambda v: math.exp(sum(math.log(x) for x in v) / len(v))
    return gm(top1), max(top1), gm(top5), sum(rho) / max(len(rho), 1), len(shapes)


def with_term(family: dict, knee: float, share: float) -> dict:
    trial = json.loads(json.dumps(family))
    c = trial["time"]["constants"]
    c.setdefault("mma_flight_knee_kb", {"fitted_on": "trial"})["value"] = knee
    c.setdefault("mma_flight_dram_share", {"fitted_on": "trial"})["value"] = share
    return trial


def add_common(ap) -> None:
    """The flags every decode-tile fit takes (this script's and fit_mma_copy_warps.py's)."""
    ap.add_argument("--calibration", help="comma list of dataset folders (default: the decode-tile calibration sets)")
    ap.add_argument("--held-out", help="comma list of dataset folders scored at the fit (default: -bm16-cap, -bm16-types)")
    ap.add_argument("--family-file", default=str(ROOT / "data/families/triton.json"))
    ap.add_argument("--tileplan", default=str(ROOT / "build/release/tileplan"))


def common(a) -> tuple[list[str], list[str], dict]:
    """The calibration and held-out folders and the family file the flags name, or a refusal."""
    cal = datasets("--calibration", a.calibration, CALIBRATION)
    held = datasets("--held-out", a.held_out, HELD_OUT)
    return cal, held, family_file(a.family_file, fail)


def main() -> int:
    ap = Parser(description=__doc__.split("\n")[0])
    ap.add_argument("--knees", default="32,48,64,80,96,128")
    ap.add_argument("--shares", default="0.05,0.07,0.1,0.13,0.15,0.2")
    add_common(ap)
    ap.add_argument("--device", default="h200", help="the preset that prices the datasets")
    ap.add_argument("--output", help="write the family with the fitted constants there")
    a = ap.parse_args()
    knees = numbers("--knees", a.knees, 1, 1 << 20)
    shares = numbers("--shares", a.shares, 0.001, 10)
    cal, held, family = common(a)

    off = with_term(family, 0, 0)
    base = score(a.tileplan, off, cal, a.device)
    print(f"calibration: {base[4]} shapes of {len(cal)} datasets; top-1 geomean / worst, best of top 5, rank correlation")
    print(f"{'knee KB':>8} {'share':>6} {'top-1':>7} {'worst':>7} {'top-5':>7} {'rho':>6}")
    print(f"{'off':>8} {'':>6} {base[0]:7.4f} {base[1]:7.3f} {base[2]:7.4f} {base[3]:6.3f}")
    best = None
    for knee in knees:
        for share in shares:
            s = score(a.tileplan, with_term(family, knee, share), cal, a.device)
            print(f"{knee:8g} {share:6g} {s[0]:7.4f} {s[1]:7.3f} {s[2]:7.4f} {s[3]:6.3f}")
            if best is None or (round(s[0], 4), round(s[2], 4)) < (round(best[2][0], 4), round(best[2][2], 4)):
                best = (knee, share, s)
    knee, share, s = best
    print(f"fitted: mma_flight_knee_kb {knee:g}, mma_flight_dram_share {share:g} "
          f"(calibration top-1 {base[0]:.4f} -> {s[0]:.4f}, best of top 5 {base[2]:.4f} -> {s[2]:.4f})")
    h0 = score(a.tileplan, off, held, a.device)
    h1 = score(a.tileplan, with_term(family, knee, share), held, a.device)
    print(f"held out: {h1[4]} shapes of {len(held)} datasets: top-1 {h0[0]:.4f} / {h0[1]:.3f} -> {h1[0]:.4f} / "
          f"{h1[1]:.3f}, best of top 5 {h0[2]:.4f} -> {h1[2]:.4f}, rank correlation {h0[3]:.3f} -> {h1[3]:.3f}")
    if a.output:
        pathlib.Path(a.output).write_text(json.dumps(with_term(family, knee, share), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
