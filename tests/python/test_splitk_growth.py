"""The fresh set that judged a split's DRAM share grown by the split factor
(data/h100-triton-splitk-growth): its README's per-shape and summary figures
are what `tileplan validate` says for today's family (the grown share) and
for the flat share (data/archive), the grown share wins overall and in fp8
as the README says, and every case is held out."""

import json
import pathlib

from fresh_sets import assert_all_held_out, assert_side_by_side, geo, grown_and_flat, joined

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "data/h100-triton-splitk-growth"
PARTS = ("one", "m", "m16", "bf16-one", "bf16-m", "bf16-m16", "fp8-one", "fp8-m", "fp8-m16")
SETS = [DATA / p for p in PARTS]
FLAT = ROOT / "data/archive/triton-before-split-growth.json"


def test_the_readme_s_figures_are_what_validate_says():
    readme = joined(DATA / "README.md")
    grown, flat = grown_and_flat(SETS, FLAT)
    o, g = assert_side_by_side(readme, flat, grown, 20)
    f = {s["shape"]: s for s in flat["shapes"]}
    cublas = [geo([x["cublas_ms"] / x["pick_ms"] for x in fam["shapes"]]) for fam in (flat, grown)]
    assert f"cuBLAS's time over the pick's: {cublas[0]:.3f} with the flat share, {cublas[1]:.3f} with the grown one" in readme
    unsplit = [geo([x["best_unsplit_ms"] / x["pick_ms"] for x in fam["shapes"]]) for fam in (flat, grown)]
    assert f"the best unsplit kernel's over the pick's {unsplit[0]:.3f} and {unsplit[1]:.3f}" in readme
    # The verdict: better overall, in geomean and worst case; fp8 by far.
    assert g["top1_geomean"] < o["top1_geomean"] - 0.005 and g["top1_worst"] < o["top1_worst"]

    def fp8(fam):
        return geo([x["calibrated"]["top1_regret"] for x in fam["shapes"] if x["dtype"] == "float8_e4m3"])

    assert fp8(grown) < fp8(flat) - 0.02
    # The 16-bit half is a trade: 5 shapes better, 7 worse.
    sixteen = [(f[s["shape"]]["calibrated"]["top1_regret"], s["calibrated"]["top1_regret"]) for s in grown["shapes"]
               if s["dtype"] != "float8_e4m3"]
    assert sum(b < a for a, b in sixteen) == 5 and sum(b > a for a, b in sixteen) == 7


def test_the_two_families_differ_only_in_the_split_s_dram_share():
    """The flat share's family and the one the grown share shipped in (today's
    before kmajor_b_row_dram_share, test_kmajor_b_rows.py)."""
    a = json.loads(FLAT.read_text())
    b = json.loads((ROOT / "data/archive/triton-before-kmajor-b-rows.json").read_text())
    ca, cb = a["split_k"]["constants"], b["split_k"]["constants"]
    assert ca["split_dram_share"]["value"] == 0.1 and "split_dram_growth" not in ca
    assert cb["split_dram_share"]["value"] == 0.08 and cb["split_dram_growth"]["value"] == 1.0
    for fam in (a, b):
        fam["split_k"]["constants"] = {k: v["value"] for k, v in fam["split_k"]["constants"].items()
                                       if k not in ("split_dram_share", "split_dram_growth")}
        fam["split_k"].pop("fitted_on", None)
    assert a["split_k"] == b["split_k"]
    assert {k: v for k, v in a.items() if k != "split_k"} == {k: v for k, v in b.items() if k != "split_k"}


def test_every_case_is_held_out_and_measured_on_an_h100():
    assert_all_held_out(SETS, "NVIDIA H100 80GB HBM3", 20)
