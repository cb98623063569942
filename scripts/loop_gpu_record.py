#!/usr/bin/env python3
"""Turns one run of bench/gpu/run_loop_copy.sh into data/loop_gpu.json.

Reads the variant table from bench/gpu/loop_copy.cu and the run's env.txt,
timing.txt and counters.txt; with --tileplan, adds the model's prediction for
each variant (the whole matrix: per tile, summed over the tile origins).
Standard library only.

    python3 scripts/loop_gpu_record.py RUN_DIR --tileplan build/release/tileplan > data/loop_gpu.json
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ROW = re.compile(
    r'\{"(\w+)", "(\w+)", (\d+), (\d+), (\d+), (\d+), (\d+), (\d+), (true|false), (true|false), '
    r"(\d+), (\d+), (\d+), (\d+),")


def variants():
    out = []
    for m in ROW.finditer((REPO / "bench" / "gpu" / "loop_copy.cu").read_text()):
        g = m.groups()
        e0, e1 = int(g[3]), int(g[4])
        transposed = g[8] == "true"
        out.append({
            "name": g[0], "dtype": g[1], "elem_bytes": int(g[2]), "extents": [e0, e1], "threads": int(g[5]),
            "vector": int(g[6]), "width": int(g[7]), "access": [1, 0] if transposed else [0, 1],
            "scope": "shared" if g[9] == "true" else "global", "matrix": [int(g[10]), int(g[11])],
            "shared_buffer": [int(g[12]), int(g[13])] if g[9] == "true" else None,
        })
    return out


def predict(tileplan: str, v: dict) -> dict:
    box = [v["extents"][a] for a in v["access"]]
    rows, cols = v["matrix"]
    tiles = (rows // box[0]) * (cols // box[1])
    base = [tileplan, "loop", "--format", "json", "--extents", *map(str, v["extents"]), "--threads",
            str(v["threads"]), "--vector", str(v["vector"]), "--dtype", v["dtype"], "--scope", v["scope"],
            "--access", ",".join(map(str, v["access"]))]
    if v["scope"] == "shared":
        origins = Counter({(0, 0): tiles})
        shape = v["shared_buffer"]
    else:
        # Rows are a multiple of 128 B apart: a tile's pattern depends on its column only.
        origins = Counter()
        for c in range(cols // box[1]):
            origins[(0, c * box[1])] += rows // box[0]
        shape = v["matrix"]
    total = Counter()
    cache = {}
    for (r0, c0), count in origins.items():
        key = (c0 * v["elem_bytes"]) % 128
        if key not in cache:
            args = base + ["--buffer-shape", f"{shape[0]},{shape[1]}", "--origin", f"{r0},{c0}"]
            cache[key] = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)["memory"]
        m = cache[key]
        for k in ("instructions", "sectors", "wavefronts", "ideal_wavefronts"):
            total[k] += m.get(k, 0) * count
    m = next(iter(cache.values()))
    pred = {"tiles": tiles, "access_elems": m["access_elems"], "instructions": total["instructions"],
            "sectors": total["sectors"]}
    if v["scope"] == "shared":
        pred.update(wavefronts=total["wavefronts"], ideal_wavefronts=total["ideal_wavefronts"],
                    bank_conflict_ways=m["bank_conflict_ways"])
    return pred


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--tileplan", help="the built tileplan binary, to add the model's predictions")
    args = ap.parse_args()
    env = (args.run_dir / "env.txt").read_text().splitlines()
    gpu = [s.strip() for s in env[1].split(",")]
    timing = {}
    memcpy = None
    for line in (args.run_dir / "timing.txt").read_text().splitlines():
        parts = line.split()
        if line.startswith("memcpy_d2d"):
            memcpy = float(re.search(r"([\d.]+) GB/s", line).group(1))
        elif len(parts) == 6 and parts[1] in ("ok", "FAIL"):
            timing[parts[0]] = {"check": parts[1], "median_us": float(parts[2]), "min_us": float(parts[3]),
                                "max_us": float(parts[4]), "gbps": float(parts[5])}
    lines = (args.run_dir / "counters.txt").read_text().splitlines()
    keys = lines[0].split()[1:]
    counters = {p[0]: {k: int(float(x)) for k, x in zip(keys, p[1:]) if x != "-"} for p in map(str.split, lines[1:])}
    record = {
        "source": "bench/gpu/run_loop_copy.sh; scripts/loop_gpu_record.py",
        "date": env[0].split()[1], "gpu": gpu[0], "driver": gpu[1], "max_sm_clock": gpu[3],
        "cuda": env[2].strip(), "ncu": env[3].strip(), "memcpy_gbps": memcpy,
        "variants": [],
    }
    for v in variants():
        v["measured"] = {**timing[v["name"]], **counters.get(v["name"], {})}
        if args.tileplan:
            v["predicted"] = predict(args.tileplan, v)
        record["variants"].append(v)
    print(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
