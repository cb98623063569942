#!/usr/bin/env python3
"""Score tileplan's split-K picks on a split_timing_probe.py dataset.

For every shape of DIR/probe.jsonl: the model's ranking of splits 1, 4, 8
and 16 (`tileplan tile --split-k 1,4,8,16 --topk 0 --format json`), its first
pick that was measured, and the pick's time over the shape's best (top-1
regret), the best of its first five over the best, and cuBLAS over the best,
in one of the probe's timings (bench, bench2, graph, stream).

    python3 bench/gpu/split_timing_score.py data/h200-split-timing [--timing graph]
        [--family-file F] [--tileplan build/release/tileplan]
"""
import argparse
import json
import math
import os
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dataset")
    ap.add_argument("--timing", default="graph", choices=["bench", "bench2", "graph", "stream"])
    ap.add_argument("--family-file")
    ap.add_argument("--tileplan", default=os.path.join(os.path.dirname(__file__), "../../build/release/tileplan"))
    args = ap.parse_args()
    rows = [json.loads(line) for line in open(os.path.join(args.dataset, "probe.jsonl"))]
    col = args.timing
    top1, top5 = [], []
    for shape in sorted({(r["M"], r["N"], r["K"]) for r in rows}):
        here = [r for r in rows if (r["M"], r["N"], r["K"]) == shape]
        cublas = next(r for r in here if r["key"] == "cublas")
        measured = {r["key"].rsplit("_", 1)[0]: r[col] for r in here if r["key"] != "cublas"}
        cmd = [args.tileplan, "tile", "--m", str(shape[0]), "--n", str(shape[1]), "--k", str(shape[2]),
               "--split-k", "1,4,8,16", "--topk", "0", "--format", "json"]
        if args.family_file:
            cmd += ["--family-file", args.family_file]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode:
            sys.exit(f"split_timing_score.py: {' '.join(cmd)}: {res.stderr.strip()}")
        ranked = []
        for c in json.loads(res.stdout)["candidates"]:
            key = f"{c['block_m']}x{c['block_n']}x{c['block_k']}_s{c['stages']}_w{c['threads'] // 32}_k{c['split_k']}"
            if key in measured:
                ranked.append((key, c["predicted_us"]))
        best_key = min(measured, key=measured.get)
        best = measured[best_key]
        r1 = measured[ranked[0][0]] / best
        r5 = min(measured[k] for k, _ in ranked[:5]) / best
        top1.append(r1)
        top5.append(r5)
        print(f"{'x'.join(map(str, shape)):14s} pick {ranked[0][0]:22s} {ranked[0][1]:6.1f} us predicted, "
              f"{measured[ranked[0][0]] * 1e3:6.1f} measured; best {best_key:22s} {best * 1e3:6.1f}; "
              f"top-1 {r1:.3f}, top-5 {r5:.3f}; cuBLAS / best {cublas[col] / best:.3f}")

    def geo(xs):
        return math.exp(sum(map(math.log, xs)) / len(xs))
    print(f"{len(top1)} shapes ({col}): top-1 geomean {geo(top1):.3f}, worst {max(top1):.3f}; "
          f"top-5 geomean {geo(top5):.3f}")


if __name__ == "__main__":
    main()
