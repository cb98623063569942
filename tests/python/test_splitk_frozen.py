"""The fresh set measured after the split-K overrun terms were frozen
(data/h100-triton-splitk-frozen): its README's per-shape and summary
figures are what `tileplan validate` says for today's family and for the
family before (data/archive), the worst case falls with today's family and
the geomean rises a little, as the README says, and every case is held
out."""

import pathlib

from conftest import cli_json
from fresh_sets import assert_all_held_out, assert_side_by_side, geo

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "data/h100-triton-splitk-frozen"
PARTS = ("m", "m16", "m16b", "one", "bf16-m16", "bf16-m16b", "bf16-one", "fp8-one", "fp8-m", "fp8-mb", "fp8-m16",
         "fp8-m16b")
SETS = [DATA / p for p in PARTS]
BEFORE = ROOT / "data/archive/triton-before-split-overrun.json"
# The family this set judged, shipped until a split's DRAM share grew with the
# split (data/h100-triton-splitk-growth); the README's "today's family".
JUDGED = ROOT / "data/archive/triton-before-split-growth.json"


def test_the_readme_s_figures_are_what_validate_says():
    readme = " ".join((DATA / "README.md").read_text().split())
    then = ("--power-budget", 0)  # the h100-sxm preset before its power term (docs/model.md §3)
    today = cli_json("validate", *SETS, "--family-file", JUDGED, *then)
    before = cli_json("validate", *SETS, "--family-file", BEFORE, *then)
    assert today["device"] == before["device"] == "h100-sxm"
    o, t = assert_side_by_side(readme, before, today, 19)
    cublas = [geo([x["cublas_ms"] / x["pick_ms"] for x in f["shapes"]]) for f in (before, today)]
    assert f"cuBLAS's time over the pick's: {cublas[0]:.3f} before, {cublas[1]:.3f} today" in readme
    # The README's verdict: the worst case falls by far, the geomean rises a little.
    assert t["top1_worst"] < o["top1_worst"] - 0.2
    assert o["top1_geomean"] < t["top1_geomean"] < o["top1_geomean"] + 0.01
    # The shipped family, with the grown share; then with the preset's power term.
    g = cli_json("validate", *SETS, *then)["summary"]["calibrated"]
    assert (f"With the grown share it scores {g['top1_geomean']:.3f} / {g['top1_worst']:.3f} / "
            f"{g['top5_geomean']:.3f}") in readme
    p = cli_json("validate", *SETS)["summary"]["calibrated"]
    assert (f"with the H100 preset's power term {p['top1_geomean']:.3f} / {p['top1_worst']:.3f} / "
            f"{p['top5_geomean']:.3f}") in readme


def test_every_case_is_held_out_and_measured_on_an_h100():
    assert_all_held_out(SETS, "NVIDIA H100 80GB HBM3", 19)
