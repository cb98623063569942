"""The bytes-in-flight term of the mma tiles (mma_flight_knee_kb,
mma_flight_dram_share): scripts/fit_mma_flight.py reproduces the family's
constants and the held-out figures docs/model.md states, the fresh H100
decode set scores as its README says, and the script's refusals."""

import json
import pathlib
import subprocess
import sys

from conftest import CLI, cli_json, script_error

ROOT = pathlib.Path(__file__).resolve().parents[2]
FLIGHT = ROOT / "data/h100-triton-splitk-bm16-flight"
PARTS = ("one", "m", "bf16-one", "bf16-m", "fp8-one", "fp8-m")


def script(*args):
    return subprocess.run([sys.executable, str(ROOT / "scripts/fit_mma_flight.py"), "--tileplan", str(CLI),
                           *map(str, args)], capture_output=True, text=True, timeout=600, cwd=ROOT)


def test_the_fit_reproduces_the_family_s_constants():
    # Fitted on the family of its day (data/archive/README.md).
    p = script("--family-file", ROOT / "data/archive/triton-before-split-overrun.json")
    assert p.returncode == 0, p.stderr
    c = json.loads((ROOT / "data/families/triton.json").read_text())["time"]["constants"]
    knee, share = c["mma_flight_knee_kb"]["value"], c["mma_flight_dram_share"]["value"]
    assert f"fitted: mma_flight_knee_kb {knee:g}, mma_flight_dram_share {share:g}" in p.stdout
    assert "fit_mma_flight.py" in c["mma_flight_knee_kb"]["fitted_on"]
    # The fit's own figures are the ones the family file cites.
    fit = next(l for l in p.stdout.splitlines() if l.startswith("fitted:"))
    held = next(l for l in p.stdout.splitlines() if l.startswith("held out:"))
    for figure in fit.split("(calibration top-1 ")[1].split(",")[0].split(" -> "):  # 1.0397 -> 1.0251
        assert figure in c["mma_flight_knee_kb"]["fitted_on"], figure
    before, after = held.split("top-1 ")[1].split(", best")[0].split(" -> ")
    assert f"{before} -> {after}" in c["mma_flight_knee_kb"]["fitted_on"]
    # The term improves the held-out sets' first picks.
    assert float(after.split(" / ")[0]) < float(before.split(" / ")[0]) - 0.01


BEFORE = ROOT / "data/archive/triton-before-split-overrun.json"


def test_the_fresh_flight_set_scores_as_its_readme_says():
    # Each set with the family of its day (data/archive/README.md), then today's.
    readme = (FLIGHT / "README.md").read_text()
    for name in ("flight", "flight-repeat"):
        for label, family in ((name, ("--family-file", BEFORE)), (f"{name}, today's family", ())):
            d = cli_json("validate", *[ROOT / f"data/h100-triton-splitk-bm16-{name}" / x for x in PARTS], *family)
            assert d["device"] == "h100-sxm"
            s = d["summary"]["calibrated"]
            assert s["shapes"] == 15
            row = f"| {label} | {s['top1_geomean']:.3f} / {s['top1_worst']:.3f} | {s['top5_geomean']:.3f} |"
            assert row in readme, row
    readme2 = (ROOT / "data/h100-triton-splitk-bm16-flight2/README.md").read_text()
    for label, family in (("flight2", ("--family-file", BEFORE)), ("flight2, today's family", ())):
        s = cli_json("validate", *[ROOT / "data/h100-triton-splitk-bm16-flight2" / x for x in PARTS], *family)["summary"]["calibrated"]
        assert s["shapes"] == 14
        row = f"| {label} | {s['top1_geomean']:.3f} / {s['top1_worst']:.3f} | {s['top5_geomean']:.3f} |"
        assert row in readme2, row
    for name in ("flight", "flight2"):
        for x in PARTS:
            split = json.loads((ROOT / f"data/h100-triton-splitk-bm16-{name}" / x / "split.json").read_text())
            assert split["calibration"] == []


def test_refusals(tmp_path):
    for bad in ("0,64", "", "-64", "nan", "inf", "1e300", ",".join(["64"] * 51)):
        script_error(script("--knees", bad), "fit_mma_flight.py: --knees")
    for bad in ("x", "0", "-0.1", "nan", "1e9"):
        script_error(script("--shares", bad), "fit_mma_flight.py: --shares")
    script_error(script("--calibration", tmp_path), "fit_mma_flight.py: --calibration")
    script_error(script("--held-out", tmp_path / "none"), "fit_mma_flight.py: --held-out")
    bad = tmp_path / "family.json"
    bad.write_text("{}")
    script_error(script("--family-file", bad), "fit_mma_flight.py: --family-file")
    script_error(script("--tileplan", tmp_path / "no-such-program"), "fit_mma_flight.py: --tileplan")
