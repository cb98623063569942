#!/usr/bin/env python3
"""Run-to-run noise of two measurements of the same shapes and grid.

    python3 scripts/repeat_noise.py data/h200-triton-v4 data/h200-triton-v4-repeat

Prints the distribution of time ratios over all (shape, configuration) pairs,
and for each shape the regret, in the second run, of the first run's best.
"""
import json
import math
import statistics
import sys


def load(d):
    t = {}
    for line in open(f"{d}/timings.jsonl"):
        r = json.loads(line)
        if r["key"] != "cublas" and r.get("ms"):
            t[(r["M"], r["N"], r["K"], r["key"])] = r["ms"]
    return t


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
    ratios = sorted(b[k] / a[k] for k in a if k in b)
    print(f"pairs {len(ratios)}  median |log ratio| {statistics.median(abs(math.log(r)) for r in ratios):.4f}  "
          f"p10 {ratios[len(ratios) // 10]:.3f}  p90 {ratios[9 * len(ratios) // 10]:.3f}")
    regrets = []
    for s in sorted({k[:3] for k in a}):
        ta = {k[3]: v for k, v in a.items() if k[:3] == s}
        tb = {k[3]: v for k, v in b.items() if k[:3] == s}
        best_a, best_b = min(ta, key=ta.get), min(tb, key=tb.get)
        regrets.append(tb[best_a] / tb[best_b])
        print(f"{s[0]}x{s[1]}x{s[2]}: best {best_a} / {best_b}; first run's best in the second: {regrets[-1]:.3f}")
    geo = math.exp(sum(math.log(r) for r in regrets) / len(regrets))
    print(f"oracle of the first run, judged by the second: top-1 regret geomean {geo:.4f}, worst {max(regrets):.3f}")


if __name__ == "__main__":
    main()
