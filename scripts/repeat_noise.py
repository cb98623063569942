#!/usr/bin/env python3
"""Run-to-run noise of two measurements of the same cases and grid.

    python3 scripts/repeat_noise.py data/h200-triton-v4 data/h200-triton-v4-repeat
    python3 scripts/repeat_noise.py FIRST... REPEAT

The last dataset is the second run; the ones before it hold the first
measurement of its cases (a case is its shape, input type and layouts).
Prints the distribution of time ratios over all (case, configuration) pairs,
and for each case the regret, in the second run, of the first run's best.
"""
import json
import math
import statistics
import sys


def fail(message):
    print(f"repeat_noise: {message}", file=sys.stderr)
    sys.exit(2)


def load(d):
    """(M, N, K, dtype, a_layout, b_layout, key) -> ms."""
    t = {}
    path = f"{d}/timings.jsonl"
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    r = json.loads(line)
                    if r["key"] != "cublas" and r.get("ms"):
                        case = (int(r["M"]), int(r["N"]), int(r["K"]), r.get("dtype", "float16"),
                                r.get("a_layout", "row"), r.get("b_layout", "row"))
                        t[case + (r["key"],)] = float(r["ms"])
                except (ValueError, KeyError, TypeError, AttributeError):
                    fail(f"{path}:{n}: not a timing record (a JSON object with M, N, K, key and ms)")
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    return t


def name(case):
    m, n, k, dtype, a, b = case
    suffix = "" if (dtype, a, b) == ("float16", "row", "row") else f":{dtype}:{a[0]}{b[0]}"
    return f"{m}x{n}x{k}{suffix}"


def main():
    if len(sys.argv) < 3:
        fail("give the first run's datasets and then the repeat: repeat_noise.py FIRST... REPEAT")
    b = load(sys.argv[-1])
    cases = {k[:6] for k in b}
    a = {}
    for d in sys.argv[1:-1]:
        a.update({k: v for k, v in load(d).items() if k[:6] in cases})
    ratios = sorted(b[k] / a[k] for k in a if k in b)
    if not ratios:
        fail("no (case, configuration) of the repeat is in the first datasets")
    print(f"pairs {len(ratios)}  median |log ratio| {statistics.median(abs(math.log(r)) for r in ratios):.4f}  "
          f"p10 {ratios[len(ratios) // 10]:.3f}  p90 {ratios[9 * len(ratios) // 10]:.3f}")
    regrets = []
    for s in sorted({k[:6] for k in a}):
        ta = {k[6]: v for k, v in a.items() if k[:6] == s and k in b}
        tb = {k[6]: v for k, v in b.items() if k[:6] == s and k in a}
        best_a, best_b = min(ta, key=ta.get), min(tb, key=tb.get)
        regrets.append(tb[best_a] / tb[best_b])
        print(f"{name(s)}: best {best_a} / {best_b}; first run's best in the second: {regrets[-1]:.3f}")
    geo = math.exp(sum(math.log(r) for r in regrets) / len(regrets))
    print(f"oracle of the first run, judged by the second: top-1 regret geomean {geo:.4f}, worst {max(regrets):.3f}")


if __name__ == "__main__":
    main()
