"""scripts/fit_tail_sync.py: fp8's shipped tail_sync is the grid's least biased share, and bad input is one line."""

import json
import pathlib
import re
import subprocess
import sys

import pytest

from conftest import CLI

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run_fit(*args):
    assert CLI.exists(), f"{CLI}: build tileplan first"
    return subprocess.run([sys.executable, str(ROOT / "scripts/fit_tail_sync.py"), "--tileplan", str(CLI), *args],
                          capture_output=True, text=True, timeout=600)


def geomeans(stdout):
    """tail_sync value -> geometric mean of the partial-round pairs."""
    found = re.findall(r"tail_sync ([0-9.]+):\s+partial-round pairs (\d+): geomean ([0-9.]+)", stdout)
    return {float(v): (int(n), float(g)) for v, n, g in found}


def test_fp8_shipped_share_is_the_least_biased_and_float16s_is_biased():
    shipped = json.loads((ROOT / "data/families/triton.json").read_text())["by_input_type"]["float8_e4m3"]["time"]
    assert shipped["tail_sync"]["value"] == pytest.approx(1.0)
    assert "scripts/fit_tail_sync.py" in shipped["tail_sync"]["fitted_on"]
    p = run_fit("--values", "0,0.25,1")
    assert p.returncode == 0, p.stderr
    g = geomeans(p.stdout)
    assert set(g) == {0.0, 0.25, 1.0}, p.stdout
    n = g[1.0][0]
    assert n >= 30 and all(v[0] == n for v in g.values()), p.stdout  # the same pairs at every value
    # Two blocks with a partial last round run slower than predicted at
    # float16's share; the bias shrinks toward the share's upper end.
    assert g[0.25][1] > 1.04 and g[0.0][1] > g[0.25][1] > g[1.0][1], p.stdout
    assert abs(g[1.0][1] - 1) < abs(g[0.25][1] - 1), p.stdout


def test_the_value_goes_into_the_types_own_section_or_the_base(tmp_path):
    # bfloat16 has no time section of its own: the grid moves the base
    # constants, and its pairs respond to the value.
    p = run_fit("--dtype", "bfloat16", "--values", "0,1", "data/h200-triton-v20", "data/h200-triton-v43")
    assert p.returncode == 0, p.stderr
    g = geomeans(p.stdout)
    assert g[0.0][1] != g[1.0][1], p.stdout


@pytest.mark.parametrize("args,says", [
    (["--values", "x"], "--values"),
    (["--values", "1.5"], "--values"),
    (["--values", ",".join(["0.5"] * 22)], "at most 21"),
    (["--values", "nan"], "--values"),
    (["--dtype", "float7"], "no calibration case of float7"),
])
def test_bad_flags_are_one_line_and_exit_2(args, says):
    p = run_fit(*args)
    assert p.returncode == 2
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    assert any(says in l for l in lines), p.stderr
    assert "Traceback" not in p.stderr


def test_bad_datasets_and_family_are_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "timings.jsonl").write_text("{not json\n")
    (bad / "split.json").write_text('{"calibration": []}')
    badsplit = tmp_path / "badsplit"
    badsplit.mkdir()
    (badsplit / "timings.jsonl").write_text("")
    (badsplit / "split.json").write_text("[1, 2]")
    fam = tmp_path / "family.json"
    fam.write_text('{"name": "x"}')
    for args, says in (([str(tmp_path / "missing")], "timings.jsonl"), ([str(bad)], "timings.jsonl:1"),
                       ([str(badsplit)], "split.json"), (["--family-file", str(fam)], "--family-file")):
        p = run_fit(*args)
        assert p.returncode == 2, (args, p.stderr)
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        assert len(lines) == 1 and says in lines[0], (args, p.stderr)
