"""The README's split-K table of decode sets ("Shipped since: the reduction at
its marginal cost ...") is what `tileplan validate` says: the family before
the overrun terms, the family with them and the flat share (both in
data/archive), and today's family, with cuBLAS's time over the pick's for
each."""

import math
import pathlib

import pytest

from conftest import cli_json

ROOT = pathlib.Path(__file__).resolve().parents[2]
D = ROOT / "data"
BEFORE = D / "archive/triton-before-split-overrun.json"
FLAT = D / "archive/triton-before-split-growth.json"


def sk(*ds):
    return [D / ("h200-triton-splitk-" + d) for d in ds]


def h1(s):
    return [D / f"h100-triton-splitk-bm16-{s}" / p for p in ("one", "m", "bf16-one", "bf16-m", "fp8-one", "fp8-m")]


ROWS = {
    "retime, M = 1–8 (22)": sk("retime/m", "retime/one", "retime/one-bf16"),
    "g1, M = 1–12 (12)": sk("g1/m", "g1/one", "g1/one-bf16"),
    "step-fresh and -fresh2 (24)": sk(*[f"step-fresh{x}/{p}" for x in ("", "2") for p in ("m", "m-bf16", "one", "one-bf16")]),
    "fp8 e4m3, M = 1–12 (10)": sk("fp8/m", "fp8/one"),
    "bm16-again fp16 M = 1 (10)": sk("bm16-again/one"),
    "bm16-again fp8 (10)": sk("bm16-again/fp8-one", "bm16-again/fp8-m"),
    "bm16-cap (17)": sk(*["bm16-cap/" + d for d in ("one", "m", "m16", "bf16-one", "bf16-m", "bf16-m16", "fp8-one", "fp8-m",
                                                    "fp8-m16")]),
    "bm16-mid, M = 12–112 (11, H100)": [D / "h100-triton-splitk-bm16-mid/mid", D / "h100-triton-splitk-bm16-mid/odd"],
    "bm16-warps and -warps2 (29, H100)": h1("warps") + h1("warps2"),
    "splitk-partial (19, fresh, H100)": [D / "h100-triton-splitk-partial" / d for d in
                                         ("m", "m16", "bf16-one", "bf16-m", "bf16-m16", "fp8-one", "fp8-m", "fp8-m16")],
    "splitk-partial-rows (14, fresh, H100)": [D / "h100-triton-splitk-partial-rows" / d for d in
                                              ("one", "m", "m16", "bf16-m", "fp8-m", "fp8-m16")],
    "splitk-frozen (19, fresh after the freeze, H100)": [D / "h100-triton-splitk-frozen" / p for p in
                                                         ("m", "m16", "m16b", "one", "bf16-m16", "bf16-m16b", "bf16-one",
                                                          "fp8-one", "fp8-m", "fp8-mb", "fp8-m16", "fp8-m16b")],
    "splitk-growth (20, fresh for the grown share, H100)": [D / "h100-triton-splitk-growth" / p for p in
                                                            ("one", "m", "m16", "bf16-one", "bf16-m", "bf16-m16",
                                                             "fp8-one", "fp8-m", "fp8-m16")],
    "splitk-growth2 (22, fresh after it shipped, H100)": [D / "h100-triton-splitk-growth2" / p for p in
                                                          ("one", "m", "m16", "m24", "bf16-one", "bf16-m", "bf16-m16",
                                                           "fp8-one", "fp8-m", "fp8-m16")],
    "splitk-linear (14, the nn.Linear layout, fresh, H100)": [D / "h100-triton-splitk-linear" / p for p in
                                                              ("one", "m", "m16", "bf16-one", "bf16-m", "bf16-m16")],
    "splitk-linear on the H200 (14, the nn.Linear layout)": [D / "h200-triton-splitk-linear" / p for p in
                                                             ("one", "m", "m16", "m16-rest", "bf16-one", "bf16-m",
                                                              "bf16-m16", "bf16-m16-rest")],
    "layout pairs, B K-major (9, H200, fitted on)": [D / "h200-triton-splitk-layout-pairs" / f"{p}-rc" for p in
                                                     ("m", "one", "bf16-m", "bf16-one")],
    "splitk-kmajor-fresh (10, the nn.Linear layout, fresh after the short-rows term, H100)":
        [D / "h100-triton-splitk-kmajor-fresh" / p for p in ("m", "bf16-m", "one", "bf16-one")],
}


def scored(sets, *family):
    d = cli_json("validate", *sets, *family)
    s = d["summary"]["calibrated"]
    cublas = math.exp(sum(math.log(x["cublas_ms"] / x["pick_ms"]) for x in d["shapes"]) / len(d["shapes"]))
    return f"{s['top1_geomean']:.3f} / {s['top1_worst']:.3f} / {s['top5_geomean']:.3f}", f"{cublas:.3f}"


def cells(label):
    readme = (ROOT / "README.md").read_text()
    line = next(x for x in readme.splitlines() if x.startswith(f"  | {label} |"))
    return [c.strip() for c in line.split("|")[2:-1]]


@pytest.mark.parametrize("label", list(ROWS))
def test_the_readme_s_split_table_row_is_what_validate_says(label):
    before, flat, today, cublas = cells(label)
    sets = ROWS[label]
    # The archived families on the presets of their day: the h100-sxm
    # preset before its power term (docs/model.md §3, "The power cap").
    then = ("--power-budget", "0")
    f, t = scored(sets, "--family-file", FLAT, *then), scored(sets)
    assert flat.replace("**", "").split(" (")[0] == f[0]
    assert today.replace("**", "") == t[0]
    if before:
        b = scored(sets, "--family-file", BEFORE, *then)
        assert before == b[0]
        assert cublas == f"{b[1]} → {f[1]} → {t[1]}"
    else:
        assert cublas == f"{f[1]} → {t[1]}"
