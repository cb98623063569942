"""scripts/fit_in_step.py: the grid the family's provenance names gives the shipped constants."""

import json
import pathlib
import re
import subprocess
import sys

import pytest

from conftest import CLI

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIT = CLI.parent / "tileplan_fit"


def run_fit(*args):
    assert FIT.exists(), f"{FIT}: build tileplan_fit first"
    return subprocess.run([sys.executable, str(ROOT / "scripts/fit_in_step.py"), "--fit", str(FIT), *args],
                          capture_output=True, text=True, timeout=600)


def test_grid_around_the_shipped_point_picks_it_and_beats_no_term(tmp_path):
    shipped = json.loads((ROOT / "data/families/triton.json").read_text())["time"]["constants"]
    c, e = shipped["in_step_a_ns"]["value"], shipped["one_row_a_extra"]["value"]
    assert "scripts/fit_in_step.py" in shipped["in_step_a_ns"]["fitted_on"]
    grid = lambda v, d: ",".join(f"{v + k * d:g}" for k in (-1, 0, 1))
    out = tmp_path / "fitted.json"
    p = run_fit("--in-step", grid(c, 0.005), "--one-row", grid(e, 0.5), "--output", str(out))
    assert p.returncode == 0, p.stderr
    best = re.search(r"best: in_step_a_ns ([0-9.e-]+), one_row_a_extra ([0-9.e-]+) \(joint ([0-9.]+)\).*"
                     r"without the term at [0-9.]+: ([0-9.]+)", p.stdout)
    assert best, p.stdout
    assert float(best.group(1)) == pytest.approx(c)
    assert float(best.group(2)) == pytest.approx(e)
    # The term pays on the calibration cases: the objective without it is far higher.
    assert float(best.group(4)) > 1.5 * float(best.group(3)), p.stdout
    fitted = json.loads(out.read_text())["time"]["constants"]
    assert fitted["in_step_a_ns"]["value"] == pytest.approx(c)
    assert fitted["one_row_a_extra"]["value"] == pytest.approx(e)
    # 9 grid points, each a line with the two types' objectives and the joint one.
    assert len([l for l in p.stdout.splitlines() if re.match(r"\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+", l)]) == 9


@pytest.mark.parametrize("flag,value", [("--in-step", "x"), ("--in-step", "-1"), ("--one-row", "")])
def test_bad_grid_values_are_one_error_and_exit_2(flag, value):
    p = run_fit(flag, value)
    assert p.returncode == 2
    assert any(flag in l for l in p.stderr.splitlines()), p.stderr
    assert "Traceback" not in p.stderr


def test_bad_datasets_and_an_unbounded_grid_are_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "split.json").write_text("{not json")
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "split.json").write_text('{"calibration": [], "held_out": ["2x4096x4096"]}')
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    (wrong / "split.json").write_text('{"calibration": 5}')
    many = ",".join(["0.01"] * 200)
    for args, says in (([str(tmp_path / "missing")], "split.json"), ([str(bad)], "split.json"),
                       ([str(wrong)], "split.json"), ([str(empty)], "no float16 or bfloat16 calibration case"),
                       (["--in-step", many, "--one-row", ",".join(["4"] * 100)], "10000 points")):
        p = run_fit(*args)
        assert p.returncode == 2, (args, p.stderr)
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        assert len(lines) == 1 and says in lines[0], p.stderr
