#!/usr/bin/env python3
"""Fit the share of L2 within which B stays there from one group of programs
to the next (the device fields l2_reuse_full_share and l2_reuse_none_share;
docs/model.md §3, "DRAM bytes under the grouped order") on the DRAM bytes
Nsight Compute read in a run of bench/gpu/l2_reuse_probe.py.

For each kernel (any input type, GROUP_M = 8): B's reads from DRAM
are the bytes read less A's once, over B's bytes; the share of B kept from
one group to the next is (groups - B's reads) / (groups - 1), clamped to
[0, 1]. The model's share is

    together + (1 - together) * clamp((none - reuse) / (none - full), 0, 1)

with reuse = (B + one group's rows of A + its tile rows of C) / L2 and
together = 1 - (a group's programs) / SMs (0 at least; 1 when the whole
grid is one wave): consecutive groups whose programs run in the same wave
read B together. Kernels of one group say nothing and are left out.
Least squares over full < none on a grid of 0.01.

    python3 scripts/fit_l2_reuse.py data/h100-profile-l2-reuse [--table] [--shares FULL,NONE] [--formula]

--shares judges two given shares on the directory's kernels instead of
fitting them (the squared error, and the table's fitted column, are theirs);
--formula also judges the model's formula today (B kept as far as it fits
beside one group's rows of A).

The directory holds ncu.csv, rows.jsonl and device.txt ("NAME... SMS L2_BYTES").
Standard library only.
"""

import csv
import json
import math
import pathlib

from harness_io import refusal

fail, Parser = refusal("fit_l2_reuse.py")
GROUP_M = 8
ELEM = {"float16": 2, "bfloat16": 2, "float8_e4m3": 1, "float8_e5m2": 1}  # operand bytes
OUT = 2  # C: the input type for 16-bit types, fp16 for fp8


def kernels(d):
    """(case, key, groups, reuse in L2s, together, measured kept) per kernel of the probe run in d."""
    d = pathlib.Path(d)
    for name in ("ncu.csv", "rows.jsonl", "device.txt"):
        if not (d / name).is_file():
            fail(f"{d / name}: missing (a run of bench/gpu/l2_reuse_probe.py)")
    words = (d / "device.txt").read_text().split()
    try:
        sms, l2 = int(words[-2]), int(words[-1])
    except (ValueError, IndexError):
        fail(f"{d / 'device.txt'}: must end with the SM count and the L2 bytes")
    if sms < 1 or l2 < 1:
        fail(f"{d / 'device.txt'}: SM count and L2 bytes must be positive")
    lines = [line for line in (d / "ncu.csv").read_text().splitlines() if line.startswith('"')]
    table = list(csv.reader(lines))
    if not table or "Metric Name" not in table[0]:
        fail(f"{d / 'ncu.csv'}: no ncu --csv table")
    head = table[0]
    by_id = {}
    for r in table[1:]:
        row = dict(zip(head, r))
        try:
            by_id.setdefault(row["ID"], {})[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
        except (KeyError, ValueError):
            fail(f"{d / 'ncu.csv'}: a row without an ID, a metric name or a numeric value")
    launches = list(by_id.values())
    try:
        rows = [json.loads(line) for line in (d / "rows.jsonl").read_text().splitlines() if line.strip()]
    except json.JSONDecodeError as e:
        fail(f"{d / 'rows.jsonl'}: not JSON Lines ({e})")
    if len(launches) != 2 * len(rows):
        fail(f"{d}: {len(launches)} profiled launches for {len(rows)} rows (two a row expected)")
    out = []
    for i, r in enumerate(rows):
        v = launches[2 * i + 1]  # the second launch: its caches flushed by ncu, as the first's
        try:
            shape, _, rest = r["case"].partition(":")
            m, n, k = (int(t) for t in shape.split("x"))
            e = ELEM[rest.split(":")[0] if rest else "float16"]
            bm, bn = (int(t) for t in r["key"].split("_")[0].split("x")[:2])
            read = v["dram__bytes_read.sum"]
        except (KeyError, TypeError, ValueError, AttributeError):
            fail(f"{d / 'rows.jsonl'}:{i + 1}: needs a case MxNxK[:dtype:LL] (dtype one of {', '.join(ELEM)}), "
                 f"a key BMxBNx... and its launch's DRAM bytes read")
        if min(m, n, k, bm, bn) < 1:
            fail(f"{d / 'rows.jsonl'}:{i + 1}: sizes must be positive")
        tiles_m, tiles_n = math.ceil(m / bm), math.ceil(n / bn)
        group = min(GROUP_M, tiles_m)
        groups = math.ceil(tiles_m / group)
        a, b = m * k * e, n * k * e
        reuse = (b + group * bm * k * e + group * bm * n * OUT) / l2
        programs = tiles_m * tiles_n
        together = 1.0 if programs <= sms else min(1.0, max(0.0, 1.0 - group * tiles_n / sms))
        b_reads = (read - a) / b
        kept = (groups - b_reads) / (groups - 1) if groups > 1 else float("nan")
        # the model's formula today: B kept as far as it fits beside a group's rows of A
        formula = min(1.0, max(0.0, (l2 - group * bm * k * e) / b))
        out.append(dict(case=r["case"], key=r["key"], groups=groups, reuse=reuse, together=together,
                        b_reads=b_reads, kept=kept, formula=formula))
    return out


def model(reuse, together, full, none):
    return together + (1 - together) * min(1.0, max(0.0, (none - reuse) / (none - full)))


def fit(ks):
    pts = [(x["reuse"], x["together"], min(1.0, max(0.0, x["kept"]))) for x in ks if x["groups"] > 1]
    best = None
    for i in range(0, 200):
        for j in range(i + 1, 201):
            full, none = i / 100, j / 100
            e = sum((model(r, t, full, none) - k) ** 2 for r, t, k in pts)
            if best is None or e < best[0] - 1e-12:
                best = (e, full, none)
    return best, len(pts)


def main():
    ap = Parser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--table", action="store_true", help="print every kernel's measured and fitted share")
    ap.add_argument("--shares", help="FULL,NONE: judge these shares instead of fitting them")
    ap.add_argument("--formula", action="store_true",
                    help="also judge the model's formula today, clamp((L2 - a group's rows of A) / B, 0, 1)")
    args = ap.parse_args()
    ks = kernels(args.dir)
    if args.formula:
        pts = [(x["formula"], min(1.0, max(0.0, x["kept"]))) for x in ks if x["groups"] > 1]
        print(f"the model's formula: squared error {sum((f - k) ** 2 for f, k in pts):.4f} over {len(pts)} kernels")
    (err, full, none), n = fit(ks)
    if args.shares is not None:
        try:
            full, none = (float(x) for x in args.shares.split(","))
        except ValueError:
            fail(f"--shares {args.shares[:40]!r}: must be FULL,NONE, two numbers")
        if not (0 <= full < none <= 64):
            fail(f"--shares {args.shares[:40]!r}: must be 0 <= FULL < NONE <= 64")
        pts = [(x["reuse"], x["together"], min(1.0, max(0.0, x["kept"]))) for x in ks if x["groups"] > 1]
        err = sum((model(r, t, full, none) - k) ** 2 for r, t, k in pts)
    if args.table:
        print(f"{'case':30s} {'tile':18s} groups  reuse/L2 together  B reads  kept  fitted")
        for x in ks:
            fitted = model(x["reuse"], x["together"], full, none) if x["groups"] > 1 else float("nan")
            print(f"{x['case']:30s} {x['key']:18s} {x['groups']:6d} {x['reuse']:9.3f} {x['together']:8.2f} "
                  f"{x['b_reads']:8.2f} {x['kept']:5.2f} {fitted:7.2f}")
    print(f"l2_reuse_full_share {full:.2f}, l2_reuse_none_share {none:.2f}{' (given)' if args.shares else ''}: "
          f"squared error {err:.4f} over {n} kernels of two or more groups")


if __name__ == "__main__":
    main()
