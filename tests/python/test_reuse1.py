"""data/h100-triton-reuse1, the seventeenth round's fresh judge (B's reuse in
L2 between program groups and sm_overlap_power): its README's tables are
what `tileplan validate` says with today's family and the family before the
round, on the h100-sxm preset and with the H200's picks; the picks
bench/gpu/runs/reuse1.sh wrote before measuring are what the two families
pick; the verdicts hold; every case is held out, measured on an H100 and in
no earlier set."""

import json
import math
import pathlib
import re

from conftest import cli_json

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "data/h100-triton-reuse1"
BEFORE = ROOT / "data/archive/triton-before-l2-reuse.json"
CONTROLS = {"1500x4096x14336:float8_e4m3:rc", "1000x14336x4096:float16:rc", "1000x5120x5120:bfloat16:rc"}


def geo(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def scores(device, *family):
    return {s["shape"]: s for s in cli_json("validate", DATA, "--device", device, *family)["shapes"]}


def pick(s):
    return f"{s['calibrated']['top1_key']} {s['calibrated']['top1_regret']:.3f}"


def test_every_case_is_held_out_fresh_and_on_an_h100():
    split = json.loads((DATA / "split.json").read_text())
    assert split["calibration"] == [] and len(split["held_out"]) == 17
    assert json.loads((DATA / "meta.json").read_text())["gpu"] == "NVIDIA H100 80GB HBM3"
    rows = [json.loads(l) for l in (DATA / "timings.jsonl").read_text().splitlines()]
    case = lambda r: (r["M"], r["N"], r["K"], r.get("dtype", "float16"), r.get("a_layout", "row"), r.get("b_layout", "row"))
    shapes = {case(r) for r in rows}
    assert len(shapes) == 17
    earlier = set()
    for f in ROOT.glob("data/**/timings.jsonl"):
        if f.parent.resolve() != DATA.resolve():
            earlier |= {case(json.loads(line)) for line in f.read_text().splitlines()}
    assert not shapes & earlier
    assert all(r["key"] == "cublas" or r.get("rel_err") is not None and r["rel_err"] < 5e-3 for r in rows)


def test_the_script_wrote_both_families_picks():
    text = (ROOT / "bench/gpu/runs/reuse1.sh").read_text()
    written = re.findall(r"^#\s+(\d+x\d+x\d+)\s+(fp8|fp16|bf16)\s+rc\s+(\S+)\s+\|\s+(\S+)$", text, re.M)
    assert len(written) == 17
    dtype = {"fp8": "float8_e4m3", "fp16": "float16", "bf16": "bfloat16"}
    for mnk, t, before, today in written:
        m, n, k = mnk.split("x")
        args = ("tile", "--m", m, "--n", n, "--k", k, "--dtype", dtype[t], "--b-layout", "col", "--topk", "1",
                "--device", "h200")
        for family, want in (((), today), (("--family-file", BEFORE), before)):
            c = cli_json(*args, *family)["candidates"][0]
            got = f"{c['block_m']}x{c['block_n']}x{c['block_k']}_s{c['stages']}_w{c['threads'] // 32}"
            assert got == want, (mnk, t, family, got)
        assert (before == today) == (f"{mnk}:{dtype[t]}:rc" in CONTROLS), mnk


def test_the_readme_s_tables_are_what_validate_says():
    readme = (DATA / "README.md").read_text()
    runs = {(d, f): scores(d, *fam) for d in ("h100-sxm", "h200") for f, fam in (("before", ("--family-file", BEFORE)),
                                                                                    ("today", ()))}
    for device, label in (("h100-sxm", "`h100-sxm` (this device's preset)"), ("h200", "`h200` (the picks the script wrote)")):
        cells = []
        for f in ("before", "today"):
            d = cli_json("validate", DATA, "--device", device, *(("--family-file", BEFORE) if f == "before" else ()))
            c = d["summary"]["calibrated"]
            cells.append(f"{c['top1_geomean']:.3f} / {c['top1_worst']:.3f} / {c['top5_geomean']:.3f}")
        moved = {f: [s["calibrated"]["top1_regret"] for k, s in runs[(device, f)].items() if k not in CONTROLS]
                 for f in ("before", "today")}
        ctrl = [s["calibrated"]["top1_regret"] for k, s in runs[(device, "today")].items() if k in CONTROLS]
        assert [runs[(device, "before")][k]["calibrated"]["top1_regret"] for k in sorted(CONTROLS)] == \
            [runs[(device, "today")][k]["calibrated"]["top1_regret"] for k in sorted(CONTROLS)]
        row = next(x for x in readme.splitlines() if x.startswith(f"| {label} |"))
        got = [c.strip().replace("**", "") for c in row.split("|")[2:-1]]
        assert got[0] == cells[0] and got[1] == cells[1], (got, cells)
        assert got[2] == (f"{geo(moved['before']):.3f} / {max(moved['before']):.3f} → "
                          f"{geo(moved['today']):.3f} / {max(moved['today']):.3f}"), got[2]
        assert got[3] == f"{geo(ctrl):.3f} / {max(ctrl):.3f} either way", got[3]
    for shape, s in runs[("h100-sxm", "today")].items():
        row = (f"| {shape} | {s['best_key']} ({s['best_ms'] * 1e3:.1f}) | {pick(runs[('h200', 'before')][shape])} | "
               f"{pick(runs[('h200', 'today')][shape])} | {pick(runs[('h100-sxm', 'before')][shape])} | "
               f"{pick(s)} | {s['clock']['best']['mhz']} |")
        assert row in readme, row


def test_the_verdicts():
    readme = " ".join((DATA / "README.md").read_text().split())
    h100 = {f: scores("h100-sxm", *fam) for f, fam in (("before", ("--family-file", BEFORE)), ("today", ()))}
    h200 = {f: scores("h200", *fam) for f, fam in (("before", ("--family-file", BEFORE)), ("today", ()))}
    regret = lambda d, k: d[k]["calibrated"]["top1_regret"]
    # The device's own preset: today's picks better overall and never worse.
    assert geo([regret(h100["today"], k) for k in h100["today"]]) < geo([regret(h100["before"], k) for k in h100["before"]]) - 0.01
    assert all(regret(h100["today"], k) <= regret(h100["before"], k) for k in h100["today"])
    # fp8 (unthrottled here): the H200's picks better on every moved case.
    fp8 = [k for k in h200["today"] if "float8" in k and k not in CONTROLS]
    assert len(fp8) == 9 and all(regret(h200["today"], k) <= regret(h200["before"], k) for k in fp8)
    before, today = geo([regret(h200["before"], k) for k in fp8]), geo([regret(h200["today"], k) for k in fp8])
    assert f"go {before:.3f} → **{today:.3f}** geomean with the `h200` picks" in readme
    # 16-bit: power-capped here; the h100-sxm preset picks 256x128 with 8 warps on each moved case.
    b16 = [k for k in h100["today"] if "float8" not in k and k not in CONTROLS]
    assert len(b16) == 5 and all(h100["today"][k]["calibrated"]["top1_key"].startswith("256x128x64") for k in b16)
    assert all(h100["today"][k]["clock"]["best"]["power_capped"] for k in b16)
    assert f"({geo([regret(h100['today'], k) for k in b16]):.3f} geomean)" in readme
    assert (f"({geo([regret(h200['before'], k) for k in b16]):.3f} before, "
            f"{geo([regret(h200['today'], k) for k in b16]):.3f} after;") in readme
