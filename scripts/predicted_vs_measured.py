#!/usr/bin/env python3
"""How close the calibrated model's predicted times are to the measured ones.

For each measured shape of the given datasets (and split), runs `tileplan
tile` over the measured grid with the shape's input type, layouts and leading
dimensions, pairs every feasible configuration's predicted_us with its
measured time (unsplit configurations only: those of the split-K harness
count with their `_k1_none` rows), and prints the ratio's median,
10th and 90th percentiles, mean absolute log error and geometric mean, for
all configurations and for those within --near (1.2) of the shape's best.

--by splits both lines by a property of each configuration:

    class    the divisibility class the harness measured it in (type,
             layouts, which of M, N, K are multiples of 16);
    spill    what the model predicts of its registers: "held tiles spill"
             (operand tiles held in registers spill, priced per register by
             spill_access_cycles), "epilogue spills" (narrow stores of C),
             "accumulators spill" (spill_factor), or "no spill";
    class+spill  both;
    block_k  the configuration's block_K;
    class+block_k  both;
    stages   the configuration's stages;
    class+stages  both;
    tile     the tile's block_M x block_N and warps (BMxBN_wW);
    class+tile  both;
    waves    the grid's waves of resident programs (programs over SMs x
             blocks per SM): "waves <= 1", "<= 2", "<= 4" or "> 4";
    tile+waves  the tile and the waves.

--min-n and --max-m keep the cases whose N is at least, and whose M is at
most, the value given (the wide decode steps, say).

--centred divides each ratio by the median ratio of its shape's
configurations in the same line (all, or near the best), so that a shape's
own offset cancels and the groups compare within shapes. --near-by
predicted takes the near-best line's configurations by their predicted time
(within --near of the shape's least predicted), which does not favour the
configurations that happened to run fast.

    python3 scripts/predicted_vs_measured.py --split heldout data/h200-triton-v2 data/h200-triton-v4
    python3 scripts/predicted_vs_measured.py --by class+spill --near 1.5 data/h200-triton-v24
    python3 scripts/predicted_vs_measured.py --split heldout --by class+block_k --centred --near-by predicted data/h200-triton-v31
    python3 scripts/predicted_vs_measured.py --by stages --centred --near-by predicted --near 1.1 --min-n 16384 --max-m 16 --device h100-sxm data/h100-triton-splitk-linear/m

Standard library only.
"""

import json
import math
import pathlib
import re

from harness_io import CONFIG_KEY, SPLIT_KEY, refusal, tile_json

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The harness grids' tiles (16- and 32-row ones from the split-K harness).
GRID = ["--block-m", "16,32,64,128,256", "--block-n", "64,128,256", "--block-k", "32,64,128",
        "--stages", "2,3,4,5", "--threads", "128,256"]
fail, Parser = refusal("predicted_vs_measured.py")


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def case_name(m, n, k, dtype, a_layout, b_layout):
    """The name split.json gives a case: MxNxK, with :dtype:LL unless fp16 with A and B row-major."""
    name = f"{m}x{n}x{k}"
    if (dtype, a_layout, b_layout) != ("float16", "row", "row"):
        name += f":{dtype}:{a_layout[0]}{b_layout[0]}"
    return name


def waves_of(c, sms):
    """The grid's waves of resident programs, bucketed."""
    w = c["grid"] / (sms * max(c["blocks_per_sm"], 1))
    return "waves <= 1" if w <= 1 else "waves <= 2" if w <= 2 else "waves <= 4" if w <= 4 else "waves > 4"


def tile_of(c):
    """A configuration's tile and warps, BMxBN_wW (block_K and stages left out)."""
    return f"{c['block_m']}x{c['block_n']}_w{c['threads'] // 32}"


def spill_kind(c):
    if c.get("spilled_registers", 0) > 0:
        return "held tiles spill"
    if c.get("epilogue_spilled_registers", 0) > 0:
        return "epilogue spills"
    if c.get("spills"):
        return "accumulators spill"
    return "no spill"


def load(ds):
    """{(M, N, K, dtype, a_layout, b_layout, lda, ldb, ldc): ({config key: us}, class)} of one dataset."""
    cases = {}
    for number, line in enumerate((ds / "timings.jsonl").read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
            key, split = r["key"], SPLIT_KEY.match(r["key"])
            if split and split.group(6, 7) == ("1", "none") and r.get("variant", "none") == "none":  # unsplit rows
                key = key[: key.rindex("_k")]
            if r.get("ms") is None or not CONFIG_KEY.match(key) or r.get("split_k", 1) != 1:
                continue
            dims = tuple(int(r[d]) for d in "MNK")
            case = (*dims, r.get("dtype", "float16"), r.get("a_layout", "row"), r.get("b_layout", "row"),
                    r.get("lda"), r.get("ldb"), r.get("ldc"))
            layouts = case[4][0] + case[5][0]
            times, _ = cases.setdefault(case, ({}, r.get("class", f"{case[3]}:{layouts}:" + "".join(
                "MNK"[i] if d % 16 == 0 else "mnk"[i] for i, d in enumerate(dims)))))
            ms = float(r["ms"])
            if not (ms > 0 and math.isfinite(ms)):
                raise ValueError(f"ms {r['ms']} is not a positive time")
            times[key] = ms * 1e3
        except (ValueError, KeyError, TypeError, AttributeError, IndexError) as e:
            fail(f"{ds}/timings.jsonl line {number}: not a timing row of the harness ({type(e).__name__}: {e})")
    return cases


def main():
    ap = Parser(description=__doc__.splitlines()[0])
    ap.add_argument("datasets", nargs="+")
    ap.add_argument("--split", choices=["calibration", "heldout", "all"], default="all")
    ap.add_argument("--near", type=float, default=1.2, help="the near-best line's bound over the best (default 1.2)")
    ap.add_argument("--by", choices=["none", "class", "spill", "class+spill", "block_k", "class+block_k", "stages",
                                     "class+stages", "tile", "class+tile", "waves", "tile+waves"], default="none")
    ap.add_argument("--min-n", default=None, help="only cases with N at least this (default: any)")
    ap.add_argument("--max-m", default=None, help="only cases with M at most this (default: any)")
    ap.add_argument("--centred", action="store_true", help="divide each ratio by its shape's median in the line")
    ap.add_argument("--near-by", choices=["measured", "predicted"], default="measured",
                    help="which time the near-best line's bound applies to (default measured)")
    ap.add_argument("--tileplan", default=str(ROOT / "build" / "release" / "tileplan"))
    ap.add_argument("--device", default="h200",
                    help="the preset the tool plans for (default h200; the H100 datasets: h100-sxm)")
    a = ap.parse_args()
    if not (a.near >= 1.0 and math.isfinite(a.near)):
        fail(f"--near {a.near}: must be a finite number of at least 1")
    bounds = {}
    for flag, text in (("--min-n", a.min_n), ("--max-m", a.max_m)):
        if text is None:
            continue
        if not (text.isdigit() and 1 <= int(text) <= 2**31 - 1):
            fail(f"{flag} {text}: must be a whole number from 1 to 2147483647")
        bounds[flag] = int(text)
    groups = {}  # (group, near?) -> ratios predicted / measured
    for name in a.datasets:
        ds = pathlib.Path(name)
        if not (ds / "timings.jsonl").is_file():
            fail(f"{ds}: no timings.jsonl (a dataset directory of the harness)")
        try:
            split = json.loads((ds / "split.json").read_text()) if (ds / "split.json").exists() else {}
            held = set(split.get("held_out", []))
        except (ValueError, TypeError, AttributeError) as e:
            fail(f"{ds}/split.json: not a split of the harness ({type(e).__name__}: {e})")
        for case, (measured, cls) in sorted(load(ds).items(), key=lambda kv: str(kv[0])):
            m, n, k, dtype, a_layout, b_layout, lda, ldb, ldc = case
            is_held = case_name(m, n, k, dtype, a_layout, b_layout) in held
            if a.split == "heldout" and not is_held or a.split == "calibration" and is_held:
                continue
            if n < bounds.get("--min-n", 1) or m > bounds.get("--max-m", m):
                continue
            args = [a.tileplan, "tile", "--device", a.device, "--m", str(m), "--n", str(n), "--k", str(k), "--dtype", dtype,
                    "--a-layout", a_layout, "--b-layout", b_layout, "--topk", "0", "--format", "json", *GRID]
            for flag, ld in (("--lda", lda), ("--ldb", ldb), ("--ldc", ldc)):
                if ld:
                    args += [flag, str(ld)]
            plan = tile_json(args, fail, case_name(m, n, k, dtype, a_layout, b_layout))
            sms = plan["device"]["sm_count"]
            key = lambda c: f"{c['block_m']}x{c['block_n']}x{c['block_k']}_s{c['stages']}_w{c['threads'] // 32}"
            paired = [(c, measured[key(c)]) for c in plan["candidates"] if key(c) in measured]
            if not paired:
                continue
            by_predicted = a.near_by == "predicted"
            # the measured best over every measured configuration, the predicted one over those planned
            best = min(c["predicted_us"] for c, _ in paired) if by_predicted else min(measured.values())
            shape = {}  # (group, near?) -> this shape's ratios
            for c, us in paired:
                group = {"none": "", "class": cls, "spill": spill_kind(c), "class+spill": f"{cls} {spill_kind(c)}",
                         "block_k": f"block_K {c['block_k']}", "class+block_k": f"{cls} block_K {c['block_k']}",
                         "stages": f"stages {c['stages']}", "class+stages": f"{cls} stages {c['stages']}",
                         "tile": tile_of(c), "class+tile": f"{cls} {tile_of(c)}",
                         "waves": waves_of(c, sms), "tile+waves": f"{tile_of(c)} {waves_of(c, sms)}"}[a.by]
                r = c["predicted_us"] / us
                shape.setdefault((group, False), []).append(r)
                if (c["predicted_us"] if by_predicted else us) <= a.near * best:
                    shape.setdefault((group, True), []).append(r)
            for is_near in (False, True):
                xs = [r for (g, n), rs in shape.items() if n == is_near for r in rs]
                mid = pct(xs, 0.5) if a.centred and xs else 1.0
                for (g, n), rs in shape.items():
                    if n == is_near:
                        groups.setdefault((g, n), []).extend(r / mid for r in rs)
    if not groups:
        fail("no measured configuration in the datasets and split given")
    near_label = f"within {a.near:g}x of the best"
    labels = {key: (key[0] + " " if key[0] else "") + (near_label if key[1] else "all") for key in groups}
    width = max(26, *(len(label) for label in labels.values()))
    for key, xs in sorted(groups.items()):
        mal = sum(abs(math.log(x)) for x in xs) / len(xs)
        geo = math.exp(sum(math.log(x) for x in xs) / len(xs))
        print(f"{labels[key]:<{width}} n={len(xs):5d}  median {pct(xs, 0.5):.3f}  p10-p90 {pct(xs, 0.1):.3f}-{pct(xs, 0.9):.3f}"
              f"  mean |log| {mal:.3f}  geomean {geo:.3f}")


if __name__ == "__main__":
    main()
