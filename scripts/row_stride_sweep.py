#!/usr/bin/env python3
"""B's row stride against the stage count: data/h100-profile-row-stride.

Reads the probe files of `bench/gpu/parity_probe.py --sweep` (one JSON object
per line: case "MxNxK_ldbL_ldcC", key BMxBNxBK_sS_wW, round, ms) and prints,
per N, tile and run, the ratio of 3 stages' median time over 2 stages'
grouped by the alignment of B's rows (2 * ldb bytes for fp16):

- rows 16-byte aligned: ldb = 8 (mod 16);
- rows 8-byte aligned: ldb = 4 (mod 8);
- rows 2- or 4-byte aligned: every other ldb not a multiple of 16;
- ldb a multiple of 16: Triton specializes the stride, another binary.

    python3 scripts/row_stride_sweep.py [PROBE.jsonl ...]

Default: every data/h100-profile-row-stride/probe-*.jsonl. Standard library only.
"""
import pathlib
import re
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from harness_io import probe_medians, refusal  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
KEY = re.compile(r"^(\d+x\d+x\d+)_s(\d+)_(w\d+)$")
GROUPS = ["rows 16-byte aligned", "rows 8-byte aligned", "rows 2- or 4-byte aligned", "ldb a multiple of 16"]


def group(ldb):
    if ldb % 16 == 0:
        return GROUPS[3]
    if ldb % 16 == 8:
        return GROUPS[0]
    if ldb % 8 == 4:
        return GROUPS[1]
    return GROUPS[2]


def medians(path, fail):
    """{(N, ldb, "BMxBNxBK_wW", stages): median ms} of one probe file."""
    out = {}
    for ((_, n, _, ldb, _), key), ms in probe_medians(path, fail).items():
        k = KEY.match(key)
        out[(n, ldb, f"{k.group(1)}_{k.group(3)}", int(k.group(2)))] = ms
    return out


def main():
    fail, Parser = refusal("row_stride_sweep.py")
    ap = Parser(description=__doc__.split("\n")[0])
    ap.add_argument("probes", nargs="*", help="probe files (default: data/h100-profile-row-stride/probe-*.jsonl)")
    args = ap.parse_args()
    paths = args.probes or sorted(str(p) for p in (ROOT / "data/h100-profile-row-stride").glob("probe-*.jsonl"))
    if not paths:
        fail("no probe files given and none in data/h100-profile-row-stride")
    runs = [medians(p, fail) for p in paths]
    for path, med in zip(paths, runs):
        if not any(s == 3 and (n, ldb, t, 2) in med for n, ldb, t, s in med):
            fail(f"{path}: no case timed at both 2 and 3 stages of one tile")
    print("3 stages over 2 stages (median of each case's rounds), by the alignment of B's rows:")
    print("| N | tile | run | group | ldb values | median | range | above 1 |")
    print("|---|---|---|---|---|---|---|---|")
    for n in sorted({key[0] for key in runs[0]}):
        for tile in sorted({key[2] for key in runs[0]}, reverse=True):
            for i, med in enumerate(runs, 1):
                by = {g: [] for g in GROUPS}
                for (nn, ldb, t, s), ms in med.items():
                    if nn == n and t == tile and s == 3 and (nn, ldb, t, 2) in med:
                        by[group(ldb)].append(ms / med[(nn, ldb, t, 2)])
                for g in GROUPS:
                    v = by[g]
                    if v:
                        print(f"| {n} | {tile} | {i} | {g} | {len(v)} | {statistics.median(v):.3f} | "
                              f"{min(v):.3f}–{max(v):.3f} | {sum(x > 1 for x in v)} |")
    if len(runs) >= 2:
        common = [key for key in runs[0] if key[3] == 3 and all(key in r and key[:3] + (2,) in r for r in runs)]
        d = [runs[0][key] / runs[0][key[:3] + (2,)] / (runs[1][key] / runs[1][key[:3] + (2,)]) for key in common]
        if d:
            print(f"run 1 over run 2, the same ratio: median {statistics.median(d):.3f}, "
                  f"{min(d):.3f} to {max(d):.3f} over {len(d)} cases and tiles")


if __name__ == "__main__":
    main()
