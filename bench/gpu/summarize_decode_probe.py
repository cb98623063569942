#!/usr/bin/env python3
"""The tables of data/h200-profile-decode-l2/README.md from its probe.jsonl and ncu.jsonl files.

    python3 bench/gpu/summarize_decode_probe.py data/h200-profile-decode-l2
"""
import json
import os
import sys

SETS = [("fp16", "1x5120x13824, fp16"), ("fp16b", "1x14336x3584, fp16"),
        ("fp8", "1x8192x2048, fp8 e4m3, B K-major")]


def num(rec, key):
    return float(str(rec.get(key, "nan")).replace(",", ""))


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: summarize_decode_probe.py DIR (a folder holding fp16/, fp16b/, fp8/)", file=sys.stderr)
        sys.exit(2)
    root = sys.argv[1]
    for name, label in SETS:
        with open(os.path.join(root, name, "probe.jsonl")) as f:
            rows = [json.loads(line) for line in f]
        with open(os.path.join(root, name, "ncu.jsonl")) as f:
            ncu = {r["key"]: r for r in map(json.loads, f)}
        print(f"\n{label} (`{name}/`):\n")
        print("| kernel | do_bench µs | dirty µs | clean µs | dirty − clean | ncu µs | DRAM % of peak | busiest SM active |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for p in rows:
            r = ncu.get(p["key"])
            if r:
                cells = (f"{num(r, 'gpu__time_duration.sum') / 1e3:.1f}",
                         f"{num(r, 'dram__throughput.avg.pct_of_peak_sustained_elapsed'):.1f}",
                         f"{num(r, 'sm__cycles_active.max') / num(r, 'sm__cycles_elapsed.max'):.2f}")
            else:
                cells = ("—", "—", "—")
            print(f"| {p['key']} | {p['ms'] * 1e3:.1f} | {p['dirty_ms'] * 1e3:.1f} | {p['clean_ms'] * 1e3:.1f} | "
                  f"{(p['dirty_ms'] - p['clean_ms']) * 1e3:.1f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
