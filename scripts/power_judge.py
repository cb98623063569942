#!/usr/bin/env python3
"""A power-term judge set scored with the term and without it (docs/model.md §3, "The power cap").

Runs `tileplan validate DATASET --format json` twice, on the preset it
matches from meta.json with its own budget and with `--power-budget 0`,
and prints the README's tables of data/h100-triton-power1 and -power2:

  * the summary: top-1 geomean / worst, best of top 5, Spearman, the
    picks' measured over predicted time;
  * one row per case: the measured best, both picks and their regrets,
    the SM clock the best ran at and cuBLAS's time over the best's;
  * the verdict by layout (B K-major against A and B row-major, the
    controls apart), and by the measured best's time (under 100 us or not).

--clocks adds what the timing rows' SM clocks say of the term: over the
16-bit rows within 1.15x of their shape's best that the term predicts
capped (`tileplan tile --diagnose`: power_us above cycles_us), by the
row's measured time, the median of the measured clock over the clock the
term implies (the boost clock x cycles_us / power_us) and of the measured
cycles (time x clock) over the model's (cycles_us x the boost clock).

    python3 scripts/power_judge.py DATASET [--controls SHAPE,...] [--clocks] [--tileplan PATH]

Standard library only.
"""
import json
import math
import pathlib
import statistics
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from harness_io import CONFIG_KEY, refusal  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHORT_US = 100.0
fail, Parser = refusal("power_judge.py")


def geo(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def validate(tileplan, dataset, *extra):
    try:
        p = subprocess.run([tileplan, "validate", str(dataset), "--format", "json", *extra], capture_output=True,
                           text=True)
    except OSError as e:
        fail(f"--tileplan {tileplan}: {e.strerror}")
    if p.returncode != 0:
        fail(f"tileplan validate {dataset}: {' '.join(p.stderr.split())}")
    return json.loads(p.stdout)


def summary_row(label, d, bold):
    s = d["summary"]["calibrated"]
    score = f"{s['top1_geomean']:.3f} / {s['top1_worst']:.3f}"
    if bold:
        score = f"**{score}**"
    return f"| {label} | {score} | {s['top5_geomean']:.3f} | {s['spearman_mean']:.3f} | {s['time_ratio']['geomean']:.3f} |"


def best_mhz(x):
    """The SM clock the measured best ran at, or a dash where the set has no clock readings."""
    best = (x.get("clock") or {}).get("best") or {}
    return best.get("mhz", "—")


def case_row(x, y):
    return (f"| {x['shape']} | {x['best_key']} ({x['best_ms'] * 1e3:.1f} µs) | {x['calibrated']['top1_key']} | "
            f"{x['calibrated']['top1_regret']:.3f} | {y['calibrated']['top1_key']} | "
            f"{y['calibrated']['top1_regret']:.3f} | {best_mhz(x)} | "
            f"{'—' if x.get('cublas_ms') is None else format(x['cublas_ms'] / x['best_ms'], '.3f')} |")


def verdict(label, shapes, on, off):
    if not shapes:
        return f"- {label}: none"
    a = [on[s]["calibrated"]["top1_regret"] for s in shapes]
    b = [off[s]["calibrated"]["top1_regret"] for s in shapes]
    better = sum(x < y for x, y in zip(a, b))
    worse = sum(x > y for x, y in zip(a, b))
    best = sum(x == 1.0 for x in a)
    return (f"- {label} ({len(shapes)}): {geo(b):.3f} → {geo(a):.3f} geomean without → with the term; "
            f"{better} better, {worse} worse, {best} at the measured best")


CLOCK_BINS = ((0, 150), (150, 300), (300, 600), (600, float("inf")))


def clock_table(tileplan, dataset, device, boost_mhz):
    """The --clocks table: [(bin label, rows, median clock ratio, median cycle ratio)]."""
    grids = {}
    for line in (pathlib.Path(dataset) / "timings.jsonl").read_text().splitlines():
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            fail(f"{dataset}/timings.jsonl: a line is not JSON")
        if (not isinstance(r, dict) or r.get("key") == "cublas" or r.get("dtype") not in ("float16", "bfloat16")
                or not r.get("sm_clock_mhz") or r.get("split_k", 1) != 1 or "lda" in r):
            continue
        case = (r["M"], r["N"], r["K"], r["dtype"], r.get("a_layout", "row"), r.get("b_layout", "row"))
        grids.setdefault(case, []).append(r)
    rows = []
    for (m, n, k, dtype, a, b), grid in sorted(grids.items()):
        best = min(r["ms"] for r in grid)
        for r in grid:
            key = CONFIG_KEY.match(r["key"])
            if r["ms"] > 1.15 * best or not key:
                continue
            bm, bn, bk, stages, warps = key.groups()
            p = subprocess.run([tileplan, "tile", "--diagnose", "--device", device, "--m", str(m), "--n", str(n),
                                "--k", str(k), "--dtype", dtype, "--a-layout", a, "--b-layout", b, "--block-m", bm,
                                "--block-n", bn, "--block-k", bk, "--stages", stages,
                                "--threads", str(32 * int(warps)), "--format", "json"],
                               capture_output=True, text=True)
            if p.returncode != 0:
                continue
            t = json.loads(p.stdout)["candidates"][0].get("time_terms") or {}
            if t.get("power_us", 0) <= t.get("cycles_us", 0):
                continue
            term_mhz = boost_mhz * t["cycles_us"] / t["power_us"]
            us = r["ms"] * 1e3
            rows.append((us, r["sm_clock_mhz"] / term_mhz, us * r["sm_clock_mhz"] / (t["cycles_us"] * boost_mhz)))
    out = []
    for lo, hi in CLOCK_BINS:
        sel = [x for x in rows if lo <= x[0] < hi]
        if sel:
            label = f"{lo:.0f}–{hi:.0f} µs" if hi != float("inf") else f"{lo:.0f} µs or more"
            out.append((label, len(sel), statistics.median(x[1] for x in sel), statistics.median(x[2] for x in sel)))
    return out


def main():
    ap = Parser(description=__doc__.split("\n")[0])
    ap.add_argument("dataset")
    ap.add_argument("--controls", default="", help="comma-separated shapes (validate's names) the term leaves")
    ap.add_argument("--clocks", action="store_true", help="the capped near-best rows' clocks and cycles against the term's")
    ap.add_argument("--tileplan", default=str(ROOT / "build/release/tileplan"))
    args = ap.parse_args()
    if not (pathlib.Path(args.dataset) / "timings.jsonl").is_file():
        fail(f"{args.dataset}: not a dataset directory (no timings.jsonl)")
    on_d, off_d = validate(args.tileplan, args.dataset), validate(args.tileplan, args.dataset, "--power-budget", "0")
    presets = json.loads(subprocess.run([args.tileplan, "devices", "--format", "json"], capture_output=True,
                                        text=True).stdout)
    preset = next((d for d in presets if d["name"] == on_d["device"] and d["power_budget_w"] > 0), None)
    if preset is None:
        fail(f"{args.dataset}: its preset {on_d['device']} has no power term (no energy fields): nothing to judge")
    controls = {c for c in args.controls.split(",") if c}
    on = {x["shape"]: x for x in on_d["shapes"]}
    off = {x["shape"]: x for x in off_d["shapes"]}
    unknown = controls - on.keys()
    if unknown:
        fail(f"--controls: not a case of {args.dataset}: {', '.join(sorted(unknown))}")
    print(f"{args.dataset} on {on_d['device']}: {len(on)} cases\n")
    print("| | top-1 geomean / worst | best of top 5 | Spearman | pick's time / predicted |")
    print("|---|---|---|---|---|")
    print(summary_row("with the power term", on_d, True))
    print(summary_row("without it (`--power-budget 0`)", off_d, False))
    print()
    print("| case | measured best | pick with the term | regret | pick without | regret | the best's SM MHz "
          "| cuBLAS / best |")
    print("|---|---|---|---:|---|---:|---:|---:|")
    for x in on_d["shapes"]:
        print(case_row(x, off[x["shape"]]))
    print()
    moved = [s for s in on if s not in controls]
    print(verdict("B K-major", [s for s in moved if s.endswith(":rc")], on, off))
    print(verdict("A and B row-major", [s for s in moved if not s.endswith(":rc")], on, off))
    print(verdict(f"the measured best under {SHORT_US:.0f} µs", [s for s in moved if on[s]["best_ms"] * 1e3 < SHORT_US],
                  on, off))
    print(verdict(f"the measured best at {SHORT_US:.0f} µs or more",
                  [s for s in moved if on[s]["best_ms"] * 1e3 >= SHORT_US], on, off))
    print(verdict("the controls", sorted(controls), on, off))
    if args.clocks:
        table = clock_table(args.tileplan, args.dataset, on_d["device"], preset["boost_clock_mhz"])
        print()
        if not table:
            print("--clocks: no 16-bit row near its best that the term caps carries an SM clock")
            return
        print("| measured time | rows the term caps (within 1.15x of the best) | measured clock / the term's "
              "| measured cycles / the model's |")
        print("|---|---:|---:|---:|")
        for label, n, clk, cyc in table:
            print(f"| {label} | {n} | {clk:.3f} | {cyc:.3f} |")


if __name__ == "__main__":
    main()
