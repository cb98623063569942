#!/usr/bin/env python3
"""How close the calibrated model's predicted times are to the measured ones.

For each shape of the given datasets (and split), runs `tileplan tile` over the
measured grid, pairs every feasible configuration's predicted_us with its
measured time, and prints the ratio's median, 10th and 90th percentiles and
mean absolute log error, for all configurations and for those within 1.2x of
the shape's best.

    python3 scripts/predicted_vs_measured.py --split heldout data/h200-triton-v2 data/h200-triton-v4
"""
import argparse
import json
import math
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent
GRID = ["--block-m", "64,128,256", "--block-n", "64,128,256", "--block-k", "32,64,128",
        "--stages", "2,3,4,5", "--threads", "128,256"]


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("datasets", nargs="+")
    ap.add_argument("--split", choices=["calibration", "heldout", "all"], default="all")
    ap.add_argument("--tileplan", default=str(ROOT / "build" / "release" / "tileplan"))
    a = ap.parse_args()
    ratios, near = [], []
    for ds in a.datasets:
        d = pathlib.Path(ds)
        split = json.loads((d / "split.json").read_text()) if (d / "split.json").exists() else {}
        held = set(split.get("held_out", []))
        times = {}
        for line in (d / "timings.jsonl").read_text().splitlines():
            r = json.loads(line)
            if r["key"] != "cublas" and r.get("ms") is not None:
                times.setdefault((r["M"], r["N"], r["K"]), {})[r["key"]] = r["ms"] * 1e3
        for (m, n, k), measured in times.items():
            name = f"{m}x{n}x{k}"
            if a.split == "heldout" and name not in held or a.split == "calibration" and name in held:
                continue
            out = subprocess.run([a.tileplan, "tile", "--m", str(m), "--n", str(n), "--k", str(k), "--topk", "0",
                                  "--format", "json", *GRID], check=True, capture_output=True, text=True).stdout
            best = min(measured.values())
            for c in json.loads(out)["candidates"]:
                key = f"{c['block_m']}x{c['block_n']}x{c['block_k']}_s{c['stages']}_w{c['threads'] // 32}"
                if key in measured:
                    r = c["predicted_us"] / measured[key]
                    ratios.append(r)
                    if measured[key] <= 1.2 * best:
                        near.append(r)
    for label, xs in (("all", ratios), ("within 1.2x of the best", near)):
        mal = sum(abs(math.log(x)) for x in xs) / len(xs)
        print(f"{label:<26} n={len(xs):5d}  median {pct(xs, 0.5):.3f}  p10-p90 {pct(xs, 0.1):.3f}-{pct(xs, 0.9):.3f}"
              f"  mean |log| {mal:.3f}")


if __name__ == "__main__":
    main()
