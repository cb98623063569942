"""fp8's register profile, refitted on v5a and mfp8 (docs/model.md §1): the
fit reproduces the shipped constants, and on the fp8 kernels of the H200
sets it was not fitted on blocks/SM equal the driver's where the docs and
the README say, against the profile before (data/archive)."""

import json
import re
import subprocess

import pytest

from conftest import CLI, ROOT

FIT = CLI.parent / "tileplan_fit"
FAMILY = ROOT / "data/families/triton.json"
BEFORE = ROOT / "data/archive/triton-before-fp8-registers.json"
CALIBRATION = ["data/h200-triton-v5a", "data/h200-triton-mfp8"]
NOT_FITTED = [f"data/h200-triton-{v}" for v in (
    "v6", "v13", "v16", "v17", "v18", "v20", "v22", "v24", "v25", "v28", "v30", "v32", "v34", "v35", "v36",
    "v37", "v45", "v46", "v47", "mfp8-fresh", "mfew-fp8-again")]
LINE = re.compile(r"^  (\S+): blocks/SM equal (\d+)/(\d+) .*regs within 16: (\d+)/(\d+)")


def profile(family, sets, tmp_path, input_type="float8_e4m3", device="h200"):
    """Blocks/SM equal and compiled rows, summed over the "profile of" lines."""
    assert FIT.exists(), f"{FIT}: build tileplan_fit first"
    p = subprocess.run([str(FIT), "--registers", "--device", device, "--family-file", str(family),
                        "--input-type", input_type, *[str(ROOT / s) for s in sets],
                        "--output", str(tmp_path / "fit.json")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    section = p.stdout.split("profile of")[1].split("fitted profile")[0]
    rows = [LINE.match(line) for line in section.splitlines()]
    rows = [m for m in rows if m]
    assert len(rows) == len(sets)
    return sum(int(m[2]) for m in rows), sum(int(m[3]) for m in rows), p.stdout


def test_the_fit_gives_the_shipped_constants(tmp_path):
    _, _, out = profile(FAMILY, CALIBRATION, tmp_path)
    fitted = json.loads((tmp_path / "fit.json").read_text())["by_input_type"]["float8_e4m3"]["registers"]
    shipped = json.loads(FAMILY.read_text())["by_input_type"]["float8_e4m3"]["registers"]
    for name in ("base", "per_accumulator", "per_a_vector", "per_b_vector"):
        assert fitted[name]["value"] == pytest.approx(shipped[name]["value"], rel=1e-9), name
    assert "data/h200-triton-v5a data/h200-triton-mfp8" in json.loads(FAMILY.read_text())[
        "by_input_type"]["float8_e4m3"]["fitted_on"]


def test_blocks_per_sm_on_the_kernels_not_fitted_on(tmp_path):
    equal, rows, _ = profile(FAMILY, NOT_FITTED, tmp_path)
    before, rows_before, _ = profile(BEFORE, NOT_FITTED, tmp_path)
    assert rows == rows_before == 7924
    assert (before, equal) == (7550, 7806)
    docs = " ".join((ROOT / "docs/model.md").read_text().split())
    assert "7550 → **7806** of 7924 (95.3% → **98.5%**)" in docs
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "98.5% of the 7924 fp8 kernel rows" in readme and "(95.3% before)" in readme


def test_e5m2_takes_the_refitted_constants_of_e4m3():
    by_type = json.loads(FAMILY.read_text())["by_input_type"]
    for name in ("base", "per_accumulator", "per_a_vector", "per_b_vector"):
        assert by_type["float8_e5m2"]["registers"][name]["value"] == by_type["float8_e4m3"]["registers"][name]["value"]


def test_fresh_e5m2_classes_judge_the_refit(tmp_path):
    """data/h100-triton-fp8-fresh: three e5m2 classes compiled after the
    refit was frozen, on an H100. The set alone (no operand moves narrow
    loads, but C of 5001 or 50257 columns is not 16-byte aligned) is a fit
    the tool can run, so its "profile of" line judges each profile."""
    fresh = ["data/h100-triton-fp8-fresh"]
    equal, rows, _ = profile(FAMILY, fresh, tmp_path, "float8_e5m2", "h100-sxm")
    before, _, _ = profile(BEFORE, fresh, tmp_path, "float8_e5m2", "h100-sxm")
    assert rows == 624
    assert (before, equal) == (597, 616)
    readme = " ".join((ROOT / "data/h100-triton-fp8-fresh/README.md").read_text().split())
    assert "| 597 (95.7%) |" in readme and "| **616 (98.7%)** |" in readme
    h200 = ["data/h200-triton-v8", "data/h200-triton-v13", "data/h200-triton-v46"]
    equal, rows, _ = profile(FAMILY, h200, tmp_path, "float8_e5m2")
    before, _, _ = profile(BEFORE, h200, tmp_path, "float8_e5m2")
    assert (rows, before, equal) == (420, 386, 408)
