#!/usr/bin/env python3
"""One stage more of the same mma tile, measured against predicted, over the decode-tile sets.

For every measured shape of the split-K harness's datasets (the `workspace`
variant, keys BMxBNxBK_sS_wW_kK_variant) the script runs `tileplan tile`
over the shape's measured grid and pairs each configuration's predicted
time with its measured one. It then prints, for the tiles of 16 and 32 rows
(mma.sync) of the 16-bit input types within --near of the shape's best, the
median of S stages over S - 1 of the same tile, measured and predicted, by
split or not, M = 1 or more and block_K; and the median and spread of the
log of measured over predicted time at M <= 16 for mma and wgmma tiles,
split or not (docs/model.md §3, "An mma tile's stages in flight").
Standard library only:

    python3 scripts/mma_stage_pairs.py [--near 1.15] [--device h200] [--family-file FILE] [DATASET...]

Default datasets: every folder of data/h200-triton-splitk-bm16*.
"""

from __future__ import annotations

import collections
import math
import pathlib
import statistics

from harness_io import SPLIT_KEY as KEY, refusal, split_grids, split_plan

ROOT = pathlib.Path(__file__).resolve().parent.parent

fail, Parser = refusal("mma_stage_pairs.py")


def measured(dataset: pathlib.Path) -> dict:
    """{(M, N, K, dtype, a_layout, b_layout): {key: us}} of a dataset's checked rows."""
    path = dataset / "timings.jsonl"
    if not path.is_file():
        fail(f"{path}: no such file (a dataset of bench/gpu/triton_splitk_harness.py)")
    return {case: {key: ms * 1e3 for key, ms in grid.items()} for case, grid in split_grids(path, fail).items()}


def predicted(tileplan: str, family: str, device: str, case: tuple, keys) -> dict:
    plan = split_plan(tileplan, case, keys, fail, ("--family-file", family, "--device", device))
    return {key: c["predicted_us"] for key, c in plan.items()}


def main() -> int:
    ap = Parser(description=__doc__.split("\n")[0])
    ap.add_argument("datasets", nargs="*")
    ap.add_argument("--near", type=float, default=1.15, help="pairs with a tile within this of the best")
    ap.add_argument("--family-file", default=str(ROOT / "data/families/triton.json"))
    ap.add_argument("--tileplan", default=str(ROOT / "build/release/tileplan"))
    ap.add_argument("--device", default="h200", help="the preset that prices the datasets (h100-sxm for an H100's)")
    a = ap.parse_args()
    if not 1 <= a.near <= 100:
        fail(f"--near {a.near}: from 1 to 100")
    datasets = [pathlib.Path(d) for d in a.datasets] or sorted(
        p.parent for p in ROOT.glob("data/h200-triton-splitk-bm16*/*/timings.jsonl"))
    if not datasets:
        fail("no dataset given and none found under data/h200-triton-splitk-bm16*")
    rows = {}  # (case, key) -> (measured us, predicted us, best us)
    for d in datasets:
        for case, grid in measured(d).items():
            pred = predicted(a.tileplan, a.family_file, a.device, case, grid)
            best = min(grid.values())
            for key, us in grid.items():
                if key in pred:
                    rows[(case, key)] = (us, pred[key], best)
    pairs = collections.defaultdict(list)
    errors = collections.defaultdict(list)
    for (case, key), (us, pred, best) in rows.items():
        bm, bn, bk, s, w, split, variant = KEY.match(key).groups()
        mma = int(bm) < 64
        if case[0] <= 16 and us <= 1.2 * best:
            errors[("mma" if mma else "wgmma", "split" if split != "1" else "unsplit")].append(math.log(us / pred))
        if not mma or case[3] not in ("float16", "bfloat16") or int(s) < 3:
            continue
        shorter = (case, key.replace(f"_s{s}_", f"_s{int(s) - 1}_"))
        if shorter not in rows:
            continue
        us1, pred1, _ = rows[shorter]
        if min(us, us1) > a.near * best:
            continue
        group = (f"{s}/{int(s) - 1}", "split" if split != "1" else "unsplit", "M=1" if case[0] == 1 else "M>1", f"bk{bk}")
        pairs[group].append((us / us1, pred / pred1))
    print(f"{len(datasets)} datasets, {len(rows)} configurations; fp16 and bf16 mma tiles, "
          f"S stages over S - 1 within {a.near} of the best (medians)")
    print(f"{'stages':>6} {'split':>8} {'M':>4} {'block_K':>7} {'pairs':>6} {'measured':>9} {'predicted':>9}")
    for g, v in sorted(pairs.items()):
        print(f"{g[0]:>6} {g[1]:>8} {g[2]:>4} {g[3]:>7} {len(v):6d} {statistics.median(x for x, _ in v):9.3f} "
              f"{statistics.median(y for _, y in v):9.3f}")
    print("measured / predicted at M <= 16, configurations within 1.2 of the best:")
    for g, v in sorted(errors.items()):
        print(f"  {g[0]:>5} {g[1]:>8}: {len(v):5d}, median {math.exp(statistics.median(v)):.3f}, "
              f"spread of the log {statistics.pstdev(v):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
