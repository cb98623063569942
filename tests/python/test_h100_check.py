"""data/h100-triton-v47: the H100 check across devices, as its README and
docs/model.md §5 state it (the shipped family, planned with the h100-sxm and
the h200 presets)."""

import json
import pathlib

from conftest import cli_json

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "data/h100-triton-v47"


def summary(device):
    d = cli_json("validate", DATA, "--device", device)
    assert d["device"] == device
    return d["summary"]["calibrated"]


def test_readme_rows_are_the_tool_s_output():
    readme = (DATA / "README.md").read_text()
    for device, bold in (("h100-sxm", True), ("h200", False)):
        s = summary(device)
        assert s["shapes"] == 17
        score = f"{s['top1_geomean']:.3f} / {s['top1_worst']:.3f}"
        if bold:
            score = f"**{score}**"
        row = f"| as shipped | `{device}` | {score} | {s['top5_geomean']:.3f} | {s['spearman_mean']:.3f} |"
        assert row in readme, row


def test_the_set_is_held_out_and_off_the_h200_gate():
    # Every case held out; the H200 gate's dataset list does not name it.
    split = json.loads((DATA / "split.json").read_text())
    assert split["calibration"] == [] and len(split["held_out"]) == 17
    gate = (ROOT / "tests/cli/model_cli_test.cpp").read_text()
    assert "h100-triton" not in gate
