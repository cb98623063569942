#!/usr/bin/env python3
"""Padding advice against measured pairs: does rounding a dimension up pay?

`tileplan tile` lists padding options for a problem whose M, N, K or leading
dimensions are not multiples of 16 (docs/model.md §3, "Padding"). This script
judges them on the measurements: it finds every pair of measured shapes of
one input type and layout where the second is the first with some of its
dimensions that are not multiples of 16 rounded up to one (by at most 64 or
2%), and the others equal, and prints one Markdown row per pair:

  measured: the best measured time of the grid for the shape as given over
      that of the padded shape (above 1: padding paid);
  pick: the same for the model's first picks, each timed in its own grid
      (what a user who follows the tool gets);
  predicted: the model's first pick's predicted time as given over the
      padded shape's;
  (the tool searches the tile values both grids measured, so that its picks
  and the measured best come from the same space);
  tool: what `tileplan tile` says of the option that pads the same
      dimensions ("pays" at a predicted speedup of 1.05 or more, "even"
      within 5%, "costs" below, "silent" where it lists no such option:
      padding those dimensions changes nothing the kernel sees);
  measured in: the dataset of each shape (pairs from two datasets were
      timed on different days, some with another timing method: their
      measured ratio carries that difference too).

The last line counts the pairs where the tool's word agrees with the
measurement (padding pays when the measured gain is 1.05 or more).
Standard library only:

  python3 scripts/padding_pairs.py                       # every data/h200-triton* set
  python3 scripts/padding_pairs.py --tileplan build/release/tileplan data/h200-triton-v21 data/h200-triton-v5a
  python3 scripts/padding_pairs.py --device h100-sxm data/h100-triton-pad1   # timed on an H100
"""

import glob
import os
import re

from harness_io import CONFIG_KEY, refusal, rows, tile_json

PAYS = 1.05  # kPaddingPays in include/tileplan/planner.hpp


fail, Parser = refusal("padding_pairs.py")


def load(datasets):
    """(M, N, K, dtype, a_layout, b_layout) -> (set, {config key: ms}) from the
    set that measured the most configurations of that shape (unsplit, packed)."""
    per_set = {}
    for ds in datasets:
        if not os.path.isfile(f"{ds}/timings.jsonl"):
            continue
        for m, n, k, dtype, a, b, key, ms in rows(f"{ds}/timings.jsonl", fail):
            per_set.setdefault((m, n, k, dtype, a, b), {}).setdefault(ds, {})[key] = ms
    return {shape: max(sets.items(), key=lambda kv: len(kv[1])) for shape, sets in per_set.items()}


def padded_pairs(shapes, least_configs):
    def near(u, v):
        return u % 16 != 0 and v % 16 == 0 and u < v <= u + max(64, 0.02 * u)

    out = []
    for u in shapes:
        for v in shapes:
            if u[3:] != v[3:] or u == v:
                continue
            dims = [i for i in range(3) if u[i] != v[i]]
            if dims and all(near(u[i], v[i]) for i in dims):
                if len(shapes[u][1]) >= least_configs and len(shapes[v][1]) >= least_configs:
                    out.append((u, v, dims))
    return sorted(out)


def measured_space(*grids):
    """The tile flags of the values every grid measured (block sizes, stages, warps)."""
    values = None
    for grid in grids:
        seen = [set() for _ in range(5)]
        for key in grid:
            for i, v in enumerate(CONFIG_KEY.match(key).groups()):
                seen[i].add(int(v))
        values = seen if values is None else [a & b for a, b in zip(values, seen)]
    values[4] = {w * 32 for w in values[4]}  # warps -> threads
    flags = ["--block-m", "--block-n", "--block-k", "--stages", "--threads"]
    return [x for f, v in zip(flags, values) for x in (f, ",".join(map(str, sorted(v))))]


def plan(tileplan, device, shape, space):
    m, n, k, dtype, a, b = shape
    args = [tileplan, "tile", "--device", device, "--m", str(m), "--n", str(n), "--k", str(k), "--dtype", dtype,
            "--a-layout", a, "--b-layout", b, "--topk", "1", "--format", "json", *space]
    return tile_json(args, fail, f"{m}x{n}x{k} {dtype}")


def key_of(c):
    return f"{c['block_m']}x{c['block_n']}x{c['block_k']}_s{c['stages']}_w{c['threads'] // 32}"


def short(dataset):
    return re.sub(r"^h[0-9]+-triton-", "", dataset.rstrip("/").split("/")[-1])


def verdict(speedup):
    return "pays" if speedup >= PAYS else "even" if speedup > 1 / PAYS else "costs"


def main():
    ap = Parser(description=__doc__.split("\n")[0])
    ap.add_argument("datasets", nargs="*", help="dataset folders (default: every data/h200-triton*)")
    ap.add_argument("--tileplan", default="build/release/tileplan")
    ap.add_argument("--device", default="h200",
                    help="the device preset the tool plans for (default h200; data/h100-triton-pad1: h100-sxm)")
    ap.add_argument("--least-configs", type=int, default=100,
                    help="leave out shapes measured with fewer configurations (default 100)")
    args = ap.parse_args()
    datasets = args.datasets or sorted(glob.glob("data/h200-triton*"))
    shapes = load(datasets)
    pairs = padded_pairs(shapes, args.least_configs)
    if not pairs:
        fail("no measured pair of a shape and its padded shape in these datasets")
    names = "MNK"
    lines = ["| shape as given | padded | type, layouts | measured | pick | predicted | tool | measured in |",
             "|---|---|---|---|---|---|---|---|"]
    agree = 0
    for u, v, dims in pairs:
        (su, tu), (sv, tv) = shapes[u], shapes[v]
        space = measured_space(tu, tv)
        pu, pv = plan(args.tileplan, args.device, u, space), plan(args.tileplan, args.device, v, space)
        cu, cv = pu["candidates"][0], pv["candidates"][0]
        measured = min(tu.values()) / min(tv.values())
        pick_u, pick_v = tu.get(key_of(cu)), tv.get(key_of(cv))
        pick = f"{pick_u / pick_v:.2f}" if pick_u and pick_v else "n/a"
        predicted = cu["predicted_us"] / cv["predicted_us"]
        want = sorted(names[i].lower() for i in dims)
        options = (pu["padding"] or {}).get("options", [])
        same = [o for o in options if sorted(o["pad"]) == want]
        word = verdict(same[0]["speedup"]) if same else "silent"
        if (word == "pays") == (measured >= PAYS):
            agree += 1
        change = ", ".join(f"{names[i]} {u[i]}->{v[i]}" for i in dims)
        lines.append(f"| {u[0]}x{u[1]}x{u[2]} | {change} | {u[3]} {u[4][0]}{u[5][0]} | {measured:.2f} | {pick} | "
              f"{predicted:.2f} | {word} | {short(su)}{'' if su == sv else ' / ' + short(sv)} |")
    # Printed once every pair is planned: a refusal leaves stdout empty.
    print("\n".join(lines))
    print(f"\nthe tool's word agrees with the measurement on {agree} of {len(pairs)} pairs "
          f"(padding pays: a measured gain of {PAYS} or more)")


if __name__ == "__main__":
    main()
