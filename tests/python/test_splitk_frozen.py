"""The fresh set measured after the split-K overrun terms were frozen
(data/h100-triton-splitk-frozen): its README's per-shape and summary
figures are what `tileplan validate` says for today's family and for the
family before (data/archive), the worst case falls with today's family and
the geomean rises a little, as the README says, and every case is held
out."""

import json
import math
import pathlib

from conftest import cli_json

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "data/h100-triton-splitk-frozen"
PARTS = ("m", "m16", "m16b", "one", "bf16-m16", "bf16-m16b", "bf16-one", "fp8-one", "fp8-m", "fp8-mb", "fp8-m16",
         "fp8-m16b")
SETS = [DATA / p for p in PARTS]
BEFORE = ROOT / "data/archive/triton-before-split-overrun.json"
# The family this set judged, shipped until a split's DRAM share grew with the
# split (data/h100-triton-splitk-growth); the README's "today's family".
JUDGED = ROOT / "data/archive/triton-before-split-growth.json"


def key(k):
    return k.replace("_workspace", "").replace("_none", "")


def geo(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def test_the_readme_s_figures_are_what_validate_says():
    readme = " ".join((DATA / "README.md").read_text().split())
    today = cli_json("validate", *SETS, "--family-file", JUDGED)
    before = cli_json("validate", *SETS, "--family-file", BEFORE)
    assert today["device"] == before["device"] == "h100-sxm"
    b = {s["shape"]: s for s in before["shapes"]}
    assert len(today["shapes"]) == len(b) == 19
    for s in today["shapes"]:
        o = b[s["shape"]]
        row = (f"| {s['shape']} | {key(s['best_key'])} | {key(o['calibrated']['top1_key'])} | "
               f"{o['calibrated']['top1_regret']:.3f} | {key(s['calibrated']['top1_key'])} | "
               f"{s['calibrated']['top1_regret']:.3f} | {s['cublas_ms'] / s['best_ms']:.3f} |")
        assert row in readme, row
    t, o = today["summary"]["calibrated"], before["summary"]["calibrated"]
    assert (f"| all 19 | {o['top1_geomean']:.3f} / {o['top1_worst']:.3f} | {o['top5_geomean']:.3f} | "
            f"**{t['top1_geomean']:.3f} / {t['top1_worst']:.3f}** | {t['top5_geomean']:.3f} |") in readme
    for dtype, label in (("float16", "fp16"), ("bfloat16", "bf16"), ("float8_e4m3", "fp8 e4m3")):
        r0 = [x["calibrated"]["top1_regret"] for x in before["shapes"] if x["dtype"] == dtype]
        r1 = [x["calibrated"]["top1_regret"] for x in today["shapes"] if x["dtype"] == dtype]
        row = f"| {label} ({len(r1)}) | {geo(r0):.3f} / {max(r0):.3f} | | {geo(r1):.3f} / {max(r1):.3f} | |"
        assert row in readme, row
    cublas = [geo([x["cublas_ms"] / x["pick_ms"] for x in f["shapes"]]) for f in (before, today)]
    assert f"cuBLAS's time over the pick's: {cublas[0]:.3f} before, {cublas[1]:.3f} today" in readme
    # The README's verdict: the worst case falls by far, the geomean rises a little.
    assert t["top1_worst"] < o["top1_worst"] - 0.2
    assert o["top1_geomean"] < t["top1_geomean"] < o["top1_geomean"] + 0.01
    # The shipped family, with the grown share.
    g = cli_json("validate", *SETS)["summary"]["calibrated"]
    assert (f"With the grown share it scores {g['top1_geomean']:.3f} / {g['top1_worst']:.3f} / "
            f"{g['top5_geomean']:.3f}") in readme


def test_every_case_is_held_out_and_measured_on_an_h100():
    names = 0
    for p in SETS:
        split = json.loads((p / "split.json").read_text())
        assert split["calibration"] == []
        assert split["held_out"] == split["measured"]
        names += len(split["held_out"])
        assert json.loads((p / "meta.json").read_text())["gpu"] == "NVIDIA H100 80GB HBM3"
    assert names == 19
