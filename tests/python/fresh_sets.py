"""Checks shared by the READMEs of fresh split-K sets judged side by side
(splitk-frozen, splitk-growth, -growth2, -linear): a table of picks per
shape for two families, their summary row and one row per input type, and
every case held out."""

import json
import math

from conftest import cli_json


def key(k):
    return k.replace("_workspace", "").replace("_none", "")


def geo(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def joined(path):
    """A README's text with its whitespace joined, as the assertions quote it."""
    return " ".join(path.read_text().split())


def grown_and_flat(sets, flat, device="h100-sxm", grown_family=None):
    """`tileplan validate` of SETS with today's family (or GROWN_FAMILY's)
    and with FLAT's (the flat split share), both priced with DEVICE's preset."""
    grown = cli_json("validate", *sets, *(("--family-file", grown_family) if grown_family else ()))
    old = cli_json("validate", *sets, "--family-file", flat)
    assert grown["device"] == old["device"] == device
    return grown, old


def assert_side_by_side(readme, left, right, shapes):
    """README (whitespace joined) holds, for `validate` answers LEFT and
    RIGHT (the family in the table's left and right columns) of SHAPES
    cases: a row per shape (measured best, each pick and its regret, cuBLAS
    over the best), the summary row `all SHAPES` (right bold) and a row per
    input type it holds. Returns the two summaries."""
    lf = {s["shape"]: s for s in left["shapes"]}
    assert len(right["shapes"]) == len(lf) == shapes
    for s in right["shapes"]:
        o = lf[s["shape"]]
        row = (f"| {s['shape']} | {key(s['best_key'])} | {key(o['calibrated']['top1_key'])} | "
               f"{o['calibrated']['top1_regret']:.3f} | {key(s['calibrated']['top1_key'])} | "
               f"{s['calibrated']['top1_regret']:.3f} | {s['cublas_ms'] / s['best_ms']:.3f} |")
        assert row in readme, row
    r, o = right["summary"]["calibrated"], left["summary"]["calibrated"]
    assert (f"| all {shapes} | {o['top1_geomean']:.3f} / {o['top1_worst']:.3f} | {o['top5_geomean']:.3f} | "
            f"**{r['top1_geomean']:.3f} / {r['top1_worst']:.3f}** | {r['top5_geomean']:.3f} |") in readme
    for dtype, label in (("float16", "fp16"), ("bfloat16", "bf16"), ("float8_e4m3", "fp8 e4m3")):
        r0 = [x["calibrated"]["top1_regret"] for x in left["shapes"] if x["dtype"] == dtype]
        r1 = [x["calibrated"]["top1_regret"] for x in right["shapes"] if x["dtype"] == dtype]
        if not r1:  # a set without this input type has no row for it
            assert not r0 and f"| {label} (" not in readme
            continue
        row = f"| {label} ({len(r1)}) | {geo(r0):.3f} / {max(r0):.3f} | | {geo(r1):.3f} / {max(r1):.3f} | |"
        assert row in readme, row
    return o, r


def assert_all_held_out(sets, gpu, shapes):
    """Every folder of SETS holds only held-out cases, all measured, on GPU;
    SHAPES of them in all."""
    names = 0
    for p in sets:
        split = json.loads((p / "split.json").read_text())
        assert split["calibration"] == []
        assert split["held_out"] == split["measured"]
        names += len(split["held_out"])
        assert json.loads((p / "meta.json").read_text())["gpu"] == gpu
    assert names == shapes
