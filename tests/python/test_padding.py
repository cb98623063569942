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


def _sizes(m, n, k):
    return {"M": m, "N": n, "K": k}


class _Config:
    def __init__(self, bm, bn, bk, warps, stages):
        self.kwargs = {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk}
        self.num_warps, self.num_stages = warps, stages


CONFIGS = [_Config(bm, bn, bk, w, s) for bm in (64, 128) for bn in (64, 128, 256) for bk in (32, 64)
           for w in (4, 8) for s in (3, 4)]


def test_prune_warns_once_where_padding_pays_and_not_where_it_cannot_matter():
    import warnings

    import tileplan.triton as tt

    hook = tt.prune(top_k=2)["early_config_prune"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hook(CONFIGS, _sizes(4096, 4096, 4096))   # aligned: nothing to pad
        hook(CONFIGS, _sizes(1000, 14336, 4096))  # M only a loop bound: nothing
        assert caught == []
        hook(CONFIGS, _sizes(2048, 50257, 4096))  # a vocabulary's N
        hook(CONFIGS, _sizes(2048, 11001, 4096))  # pays too, but the warning was shown
    assert len(caught) == 1
    message = str(caught[0].message)
    assert message.startswith("tileplan.triton.prune: 2048x50257x4096 float16: padding N 50257->50272")
    advice = tileplan.plan(2048, 50257, 4096, top_k=1).padding.options[0]
    assert f"{advice.speedup:.2f}x faster" in message and "shown once" in message


def test_heuristics_warn_once_where_padding_pays():
    import warnings

    import tileplan.triton as tt

    values = tt.heuristics()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        values["BLOCK_M"](_sizes(4096, 4096, 4096))
        assert caught == []
        values["BLOCK_M"](_sizes(4096, 4096, 1000))
        values["BLOCK_M"](_sizes(4096, 4096, 1000))
        values["BLOCK_M"](_sizes(2048, 50257, 4096))
    assert len(caught) == 1 and "padding K 1000->1008" in str(caught[0].message)


def test_no_padding_warning_under_the_seed_model():
    import warnings

    import tileplan.triton as tt

    hook = tt.prune(top_k=2, model="seed")["early_config_prune"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hook(CONFIGS, _sizes(2048, 50257, 4096))
    assert caught == []


def test_the_planners_padding_checks_its_problem():
    import pytest

    import tileplan.triton as tt

    planner = tt._planner("h200", None, None, None, "auto", "calibrated", None, None, None, None, None, None, None)
    base = {"m": 64, "n": 64, "k": 64, "dtype": "float16", "out_dtype": None, "a_layout": "row", "b_layout": "row",
            "lda": 0, "ldb": 0, "ldc": 0}
    assert planner.padding(base) is None
    summary, speedup, extra, unpadded, padded = planner.padding(dict(base, n=50257, k=4096, m=2048))
    assert summary == "N 50257->50272" and speedup > 1 and 0 < extra < 1e-3 and padded < unpadded
    for bad in (dict(base, m=0), dict(base, n=-5), dict(base, k=2**40), dict(base, dtype="int8"),
                dict(base, ldb=3), dict(base, m=2**31, n=2**31, k=2**31)):
        with pytest.raises(tileplan.Error):
            planner.padding(bad)
    with pytest.raises(TypeError):
        planner.padding(dict(base, m="64"))
