#!/usr/bin/env python3
"""Fit tail_sync for one input type on pairs of two blocks per SM against one.

With b blocks per SM and n programs on the busiest SM, the model counts the
last, partial round (n mod b programs) tail_sync of the way from staggered
among the full rounds (0) to running on its own (1) (docs/model.md §3). It was
fitted for float16 on pairs, not on the run-time objective, and this script
does the same for any type: for each tile (block_M x block_N x block_K) of
each calibration case of the type, its measured-best configuration of two
blocks per SM against its measured-best of one, the ratio

    (measured 2-block / measured 1-block) / (predicted 2-block / predicted 1-block)

over the pairs whose busiest SM ends with a partial round (an odd number of
programs, at least two), for each tail_sync of a grid. The geometric mean is
1 where the share is unbiased. Prints, per value, the partial-round pairs'
geometric mean and mean |log|, and the same over every pair.

    python3 scripts/fit_tail_sync.py [--dtype float8_e4m3] [--values 0,0.25,...]
        [--family-file data/families/triton.json] [--tileplan build/release/tileplan] DATASET...

Default datasets: fp8's calibration sets (data/h200-triton-v5a, -v20, -v45,
-mfp8, -mstep). Only the cases split.json lists as calibration are read (all
of a dataset without split.json: data/h200-triton, the first set). The value
goes into the type's own time section of the family where it has one, else
into the base constants (float16's, which a type without its own takes).
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_DATASETS = ("data/h200-triton-v5a", "data/h200-triton-v20", "data/h200-triton-v45",
                    "data/h200-triton-mfp8", "data/h200-triton-mstep")
# The measured grid (bench/gpu/triton_gemm_harness.py).
GRID = ["--block-m", "64,128,256", "--block-n", "64,128,256", "--block-k", "32,64,128",
        "--stages", "2,3,4,5", "--threads", "128,256", "--instr", "wgmma"]
SM_COUNT = 132  # the H200 preset's SMs: the data were measured there


def fail(message: str) -> None:
    """One line on stderr, exit status 2 (bad input)."""
    print(f"fit_tail_sync: {message}", file=sys.stderr)
    sys.exit(2)


def floats(text: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma list of numbers")
    if not values or any(not (0 <= v <= 1) for v in values):
        raise argparse.ArgumentTypeError(f"'{text}': every value must be a share from 0 to 1")
    if len(values) > 21:  # each value runs the model over every case: keep the grid bounded
        raise argparse.ArgumentTypeError(f"{len(values)} values: at most 21 (a step of 0.05)")
    return values


def cases(dataset: pathlib.Path, dtype: str):
    """(M, N, K, a_layout, b_layout) -> {config key: ms} of the type's calibration cases."""
    split_path = dataset / "split.json"
    timings = dataset / "timings.jsonl"
    if not timings.is_file():
        fail(f"{dataset}: not a dataset directory with timings.jsonl")
    calibration = None  # no split.json: every case is calibration (data/h200-triton, the first set)
    if split_path.is_file():
        try:
            calibration = set(json.loads(split_path.read_text()).get("calibration", []))
        except (json.JSONDecodeError, AttributeError) as e:
            fail(f"{split_path}: not a JSON object with a 'calibration' list ({e})")
    out = collections.defaultdict(dict)
    for number, line in enumerate(timings.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
            m, n, k, key = int(r["M"]), int(r["N"]), int(r["K"]), str(r["key"])
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
            fail(f"{timings}:{number}: not a timing line ({e})")
        if r.get("dtype", "float16") != dtype or key == "cublas" or not r.get("ms"):
            continue
        if r.get("split_k", 1) != 1 or r.get("variant", "none") not in ("none", None):
            continue
        la, lb = r.get("a_layout", "row"), r.get("b_layout", "row")
        name = f"{m}x{n}x{k}" + ("" if (dtype, la, lb) == ("float16", "row", "row") else f":{dtype}:{la[0]}{lb[0]}")
        if calibration is None or name in calibration:
            out[(m, n, k, la, lb)][key] = float(r["ms"])
    return out


def predictions(tileplan: str, family: str, dtype: str, case) -> dict:
    m, n, k, la, lb = case
    args = [tileplan, "tile", "--m", str(m), "--n", str(n), "--k", str(k), "--dtype", dtype,
            "--a-layout", la, "--b-layout", lb, "--topk", "0", "--format", "json", "--family-file", family] + GRID
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        fail(f"tileplan tile failed on {m}x{n}x{k}: {run.stderr.strip()}")
    out = {}
    for c in json.loads(run.stdout)["candidates"]:
        key = f"{c['block_m']}x{c['block_n']}x{c['block_k']}_s{c['stages']}_w{c['threads'] // 32}"
        out[key] = (c["predicted_us"], c["blocks_per_sm"])
    return out


def pairs(measured: dict, predicted: dict, case) -> list[tuple[float, bool]]:
    m, n = case[0], case[1]
    best = collections.defaultdict(dict)  # tile -> blocks/SM -> (measured, predicted)
    for key, ms in measured.items():
        if key not in predicted:
            continue
        pred, blocks = predicted[key]
        tile = key.split("_")[0]
        if blocks in (1, 2) and (blocks not in best[tile] or ms < best[tile][blocks][0]):
            best[tile][blocks] = (ms, pred)
    out = []
    for tile, by in best.items():
        if 1 not in by or 2 not in by:
            continue
        bm, bn, _ = (int(x) for x in tile.split("x"))
        programs = math.ceil(math.ceil(m / bm) * math.ceil(n / bn) / SM_COUNT)
        ratio = (by[2][0] / by[1][0]) / (by[2][1] / by[1][1])
        out.append((ratio, programs >= 2 and programs % 2 == 1))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("datasets", nargs="*", default=list(DEFAULT_DATASETS))
    ap.add_argument("--dtype", default="float8_e4m3")
    ap.add_argument("--values", type=floats, default=[0.0, 0.25, 0.5, 0.75, 1.0])
    ap.add_argument("--family-file", default=str(ROOT / "data/families/triton.json"))
    ap.add_argument("--tileplan", default=str(ROOT / "build/release/tileplan"))
    a = ap.parse_args()
    if not pathlib.Path(a.tileplan).is_file():
        fail(f"--tileplan {a.tileplan}: no such file (build the release preset first)")
    try:
        family = json.loads(pathlib.Path(a.family_file).read_text())
        # The type's own time section where it has one, else the base constants
        # (which float16, and every type without an override, take).
        own = family.get("by_input_type", {}).get(a.dtype, {}).get("time")
        section = own if own is not None else family["time"]["constants"]
    except (OSError, json.JSONDecodeError, KeyError, AttributeError) as e:
        fail(f"--family-file {a.family_file}: not a family file with time constants ({e})")
    data = {}
    for d in a.datasets:
        path = pathlib.Path(d) if pathlib.Path(d).is_absolute() else ROOT / d
        data.update(cases(path, a.dtype))
    if not data:
        fail(f"no calibration case of {a.dtype} in the datasets")
    print(f"{a.dtype}: {len(data)} calibration cases")
    with tempfile.TemporaryDirectory() as tmp:
        for value in a.values:
            section["tail_sync"] = {"value": value, "fitted_on": "scripts/fit_tail_sync.py grid point"}
            fam = pathlib.Path(tmp) / f"family_{value}.json"
            fam.write_text(json.dumps(family))
            every = []
            for case, measured in data.items():
                every += pairs(measured, predictions(a.tileplan, str(fam), a.dtype, case), case)
            partial = [r for r, p in every if p]
            line = f"tail_sync {value:.2f}:"
            for label, rs in (("partial-round pairs", partial), ("all pairs", [r for r, _ in every])):
                if rs:
                    logs = [math.log(r) for r in rs]
                    line += (f"  {label} {len(rs)}: geomean {math.exp(sum(logs) / len(logs)):.3f},"
                             f" mean |log| {sum(map(abs, logs)) / len(logs):.4f}")
            print(line)


if __name__ == "__main__":
    main()
