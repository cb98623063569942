"""Padding advice: the binding's and the CLI's agree, and on the measured pairs
of a shape and its padded shape (scripts/padding_pairs.py) the tool's word
holds where the measurements are clear."""

import pathlib
import subprocess
import sys

import tileplan
from conftest import CLI, cli_json

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_plan_carries_the_padding_options_of_the_cli():
    got = tileplan.plan(1024, 11001, 1000, top_k=1).to_dict()["padding"]
    want = cli_json("tile", "--m", 1024, "--n", 11001, "--k", 1000, "--topk", 1)["padding"]
    assert [o["pad"] for o in got["options"]] == [o["pad"] for o in want["options"]]
    for g, w in zip(got["options"], want["options"]):
        assert g["predicted_us"] == w["predicted_us"] and g["n"] == w["n"] and g["k"] == w["k"]
    assert tileplan.plan(4096, 4096, 4096, top_k=1).padding is None


def pairs():
    assert CLI.exists(), f"{CLI}: build tileplan first"
    p = subprocess.run([sys.executable, str(ROOT / "scripts/padding_pairs.py"), "--tileplan", str(CLI)],
                       capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    rows = [[c.strip() for c in l.strip().strip("|").split("|")] for l in p.stdout.splitlines() if l.startswith("| ")]
    assert rows and rows[0][0] == "shape as given", p.stdout
    return rows[1:], p.stdout


def test_measured_pairs_where_padding_clearly_pays_or_cannot_matter():
    rows, out = pairs()
    assert len(rows) >= 20, out
    clear_gain = [r for r in rows if float(r[3]) >= 1.5]
    silent = [r for r in rows if r[6] == "silent"]
    assert len(clear_gain) >= 5 and len(silent) >= 5, out
    # Where padding measured 1.5x or more, the tool says it pays.
    assert all(r[6] == "pays" for r in clear_gain), out
    # Where the tool is silent (the padded dimension is only a loop bound),
    # padding measured within noise of nothing.
    assert all(float(r[3]) < 1.08 for r in silent), out
    # Where it says padding pays, it measured faster.
    assert all(float(r[3]) > 1.0 for r in rows if r[6] == "pays"), out
