"""Split-K from Python: split_k in plan/diagnose (as --split-k), SPLIT_K in the Triton hooks, split_k in
TileLang's dicts, and the errors of a split the model cannot price."""

import json
import sys

import pytest

import tileplan
import tileplan.tilelang as tl
import tileplan.triton as tt
from conftest import run_cli
from test_triton import Config, emitted_triton, fake_triton, gemm_args

SPLITS = [1, 2, 4, 8, 16]


def cli_json(*flags):
    rc, out, err = run_cli(*flags, "--format", "json")
    assert rc == 0, err
    return json.loads(out)


def test_plan_with_splits_matches_cli():
    got = tileplan.plan(512, 512, 16384, split_k=SPLITS, top_k=0)
    want = cli_json("tile", "--m", 512, "--n", 512, "--k", 16384, "--split-k", "1,2,4,8,16", "--topk", 0)
    assert got.to_dict() == want
    assert got[0].split_k > 1 and got[0].reduce_us > 0
    assert {c.split_k for c in got} == set(SPLITS)


def test_split_factors_are_the_clis_auto_and_pick_a_factor_besides_the_powers_of_two():
    # 256x5120x13824: 40 tiles of 128x256; split 3 makes one wave of 120
    # programs, 4 two (data/h200-triton-splitk-any measured split 3 fastest)
    got = tileplan.plan(256, 5120, 13824, split_k=tileplan.SPLIT_FACTORS, top_k=0)
    assert got.to_dict() == cli_json("tile", "--m", 256, "--n", 5120, "--k", 13824, "--split-k", "auto", "--topk", 0)
    assert got.to_dict() == cli_json("tile", "--m", 256, "--n", 5120, "--k", 13824, "--split-k",
                                     ",".join(map(str, tileplan.SPLIT_FACTORS)), "--topk", 0)
    assert tileplan.SPLIT_FACTORS[0] == 1 and 3 in tileplan.SPLIT_FACTORS
    assert got[0].split_k == 3 and got[0].grid == 40 * 3


def test_diagnose_with_a_split_matches_cli():
    tile = {"block_m": 128, "block_n": 128, "block_k": 64, "stages": 4, "threads": 256}
    got = tileplan.diagnose(512, 512, 16384, split_k=8, **tile)
    flags = [x for key, value in tile.items() for x in ("--" + key.replace("_", "-"), value)]
    want = cli_json("tile", "--diagnose", "--m", 512, "--n", 512, "--k", 16384, "--split-k", 8, *flags)
    assert got.to_dict() == want["candidates"][0]
    assert got.split_k == 8 and got.grid == 16 * 8 and got.reduce_us > 0


@pytest.mark.parametrize("call,param,fragment", [
    (lambda: tileplan.plan(512, 512, 512, split_k=0), "split_k", "split_k value 0 must be at least 1"),
    (lambda: tileplan.plan(512, 512, 512, split_k=[2, -1]), "split_k", "split_k value -1 must be at least 1"),
    (lambda: tileplan.plan(512, 512, 512, split_k=2, model="seed"), "split_k", "the seed model"),
    (lambda: tileplan.plan(512, 512, 512, split_k=2, family="seed"), "split_k", "has no split-K model"),
    (lambda: tileplan.diagnose(512, 512, 256, block_k=64, split_k=8), "split_k", "exceeds the 4 K tiles"),
    (lambda: tileplan.plan(512, 512, 512, split_k=2**70), "split_k", "does not fit in a 64-bit integer"),
    (lambda: tileplan.plan(512, 512, 512, split_k=[]), "split_k", "the list is empty"),
    (lambda: tileplan.plan(512, 512, 512, split_k=65537), "split_k", "split_k value 65537 must be at most 65536"),
])
def test_bad_splits_raise_the_cli_message(call, param, fragment):
    with pytest.raises(tileplan.Error) as info:
        call()
    assert info.value.param == param
    assert fragment in str(info.value)


@pytest.mark.parametrize("value", ["2", 1.5, True, [2, "y"]])
def test_split_k_of_the_wrong_type_raises_type_error(value):
    with pytest.raises(TypeError, match="split_k"):
        tileplan.plan(512, 512, 512, split_k=value)


def test_configs_carry_split_k_as_the_cli_emits(monkeypatch):
    monkeypatch.setitem(sys.modules, "triton", fake_triton())
    got = tt.configs(512, 512, 16384, split_k=SPLITS, top_k=4)
    want = emitted_triton("--m", 512, "--n", 512, "--k", 16384, "--split-k", "1,2,4,8,16", "--topk", 4)
    assert [(c.kwargs, c.num_warps, c.num_stages) for c in got] == [(c.kwargs, c.num_warps, c.num_stages) for c in want]
    assert all("SPLIT_K" in c.kwargs for c in got)
    plain = tt.configs(512, 512, 16384, top_k=2)
    assert all("SPLIT_K" not in c.kwargs for c in plain)
    named = tt.configs(512, 512, 16384, split_k=[1, 8], top_k=1, split_k_key="SPLITS")
    assert "SPLITS" in named[0].kwargs


def test_prune_ranks_split_configs_by_predicted_time():
    grid = [Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "SPLIT_K": s}, num_warps=4, num_stages=4)
            for s in SPLITS]
    hook = tt.prune(top_k=0)["early_config_prune"]
    kept = hook(grid, gemm_args(512, 512, 16384))
    times = {c.split_k: c.predicted_us
             for c in tileplan.plan(512, 512, 16384, block_m=128, block_n=128, block_k=64, stages=4, threads=128,
                                    split_k=SPLITS, top_k=0)}
    assert [c.kwargs["SPLIT_K"] for c in kept] == sorted(SPLITS, key=lambda s: times[s])
    assert kept[0].kwargs["SPLIT_K"] > 1
    # A config without the key is split_k 1; a split beyond the K tiles is infeasible (C4), never first.
    few = [Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64, "SPLIT_K": 16}), Config({"BLOCK_M": 64, "BLOCK_N": 64,
                                                                                          "BLOCK_K": 64})]
    assert hook(few, gemm_args(64, 64, 256))[0] is few[1]


def test_heuristics_pick_the_split_of_the_plan():
    values = tt.heuristics(split_k=SPLITS)
    assert "SPLIT_K" in values
    best = tileplan.plan(512, 512, 16384, split_k=SPLITS, top_k=1)[0]
    args = gemm_args(512, 512, 16384)
    assert values["SPLIT_K"](args) == best.split_k > 1
    assert values["BLOCK_M"](args) == best.block_m
    assert "SPLIT_K" not in tt.heuristics()


def test_tilelang_dicts_carry_split_k_only_when_splitting():
    split = tl.configs(512, 512, 16384, split_k=[1, 8], top_k=3)
    assert all("split_k" in c for c in split) and split[0]["split_k"] == 8
    assert all("split_k" not in c for c in tl.configs(512, 512, 16384, top_k=3))


def test_fit_script_reproduces_the_shipped_reduction_constants(tmp_path):
    """scripts/fit_splitk.py, the command the family file names, gives the shipped reduction constants and
    keeps the split GEMM's own (partial_store_share, split_dram_share); the family before them had the
    reduction timed alone, which the same script gives from splitk-v1."""
    import pathlib
    import shutil
    import subprocess
    root = pathlib.Path(__file__).resolve().parents[2]
    for source, shipped_file in (("data/families/triton.json", "data/families/triton.json"),
                                 ("data/archive/triton-before-split-overrun.json",
                                  "data/archive/triton-before-split-overrun.json")):
        family = tmp_path / "triton.json"
        shutil.copy(root / source, family)
        shipped = json.loads((root / shipped_file).read_text())["split_k"]
        # The command the family's provenance names, its datasets and flags, is the one to rerun.
        command = shipped["fitted_on"].split(":")[0].split()
        assert command[0] == "scripts/fit_splitk.py", command
        datasets = [str(root / d) for d in command[1:] if not d.startswith("--")]
        flags = [f for f in command[1:] if f.startswith("--")]
        p = subprocess.run([sys.executable, str(root / "scripts/fit_splitk.py"), *datasets, str(family)] + flags,
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        fitted = json.loads(family.read_text())["split_k"]
        assert set(fitted["constants"]) == set(shipped["constants"]), source
        for name, c in shipped["constants"].items():
            assert fitted["constants"][name]["value"] == pytest.approx(c["value"], rel=1e-12), (source, name)
        assert fitted["variant"] == "workspace"
    shipped = json.loads((root / "data/families/triton.json").read_text())["split_k"]["constants"]
    assert shipped["partial_store_share"]["value"] > 0 and shipped["split_dram_share"]["value"] > 0


def test_fit_script_per_split_term_lowers_the_worst_error(tmp_path):
    """The per-split term fits splitk-v1's reduction rows better than launch + bytes alone."""
    import pathlib
    import re
    import shutil
    import subprocess
    root = pathlib.Path(__file__).resolve().parents[2]
    worst = {}
    for flags in ([], ["--per-split"]):
        family = tmp_path / "triton.json"
        shutil.copy(root / "data/families/triton.json", family)
        p = subprocess.run([sys.executable, str(root / "scripts/fit_splitk.py"),
                            str(root / "data/h200-triton-splitk-v1"), str(family)] + flags,
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        split = json.loads(family.read_text())["split_k"]
        assert ("reduce_split_us" in split["constants"]) == bool(flags)
        worst[bool(flags)] = float(re.search(r"worst error ([0-9.]+)%", split["fitted_on"]).group(1))
    assert worst[True] < worst[False] - 5.0, worst


def _fit_splitk(args, tmp_path):
    """scripts/fit_splitk.py FLAGS... DATASETS... FAMILY on a copy of the shipped family; args mixes the
    datasets (data/... paths) and the flags, which go first."""
    import pathlib
    import shutil
    import subprocess
    root = pathlib.Path(__file__).resolve().parents[2]
    family = tmp_path / "triton.json"
    shutil.copy(root / "data/families/triton.json", family)
    datasets = [str(root / a) for a in args if a.startswith("data/")]
    flags = [a for a in args if not a.startswith("data/")]
    p = subprocess.run([sys.executable, str(root / "scripts/fit_splitk.py")] + flags + datasets + [str(family)],
                       capture_output=True, text=True)
    return p, json.loads(family.read_text())


def test_fit_script_marginal_prices_the_reduction_behind_its_gemm(tmp_path):
    """--marginal fits what the reduction adds after its GEMM (splitk-graph's gemm_alone rows): less fixed
    cost than the reduction timed alone, and faster reads (the partial tiles come back from the L2)."""
    import pathlib
    root = pathlib.Path(__file__).resolve().parents[2]
    # Against the reduction timed alone (the family before the marginal cost, splitk-v1's aux_reduce rows).
    shipped = json.loads((root / "data/archive/triton-before-split-overrun.json").read_text())["split_k"]["constants"]
    graph = ["data/h200-triton-splitk-graph/one", "data/h200-triton-splitk-graph/m", "data/h200-triton-splitk-graph/big"]
    p, fam = _fit_splitk(graph + ["--per-split", "--marginal"], tmp_path)
    assert p.returncode == 0, p.stderr
    fitted = fam["split_k"]
    assert 0 < fitted["constants"]["reduce_launch_us"]["value"] < shipped["reduce_launch_us"]["value"] - 2.0
    assert fitted["constants"]["reduce_gbps"]["value"] > shipped["reduce_gbps"]["value"]
    assert "--marginal" in fitted["fitted_on"] and "splitk-graph/big" in fitted["fitted_on"]
    assert "40 (shape, split) medians" in fitted["fitted_on"], fitted["fitted_on"]


def test_fit_script_bad_input_is_one_line_exit_2(tmp_path):
    cases = [
        (["data/h200-triton-splitk-v1", "--marginal"], "no workspace kernel with a gemm_alone row"),
        (["data/no-such-dataset"], "not a dataset directory"),
        (["data/h200-triton-splitk-v1", "--out-bytes", "0"], "--out-bytes 0 must be between 1 and 8"),
        (["data/h200-triton-v2"], "no aux_reduce row"),
    ]
    for args, message in cases:
        p, _ = _fit_splitk(args, tmp_path)
        assert p.returncode == 2, (args, p.stderr)
        assert len(p.stderr.strip().splitlines()) == 1, (args, p.stderr)
        assert message in p.stderr, (args, p.stderr)
    # A family file that is not JSON, a dataset whose split.json or timings.jsonl is malformed.
    import pathlib
    import subprocess
    root = pathlib.Path(__file__).resolve().parents[2]
    for split, timings, message in (("[1, 2]", "", "not a split-K dataset with a split.json"),
                                    ('{"calibration": [3]}', "", "not a split-K dataset with a split.json"),
                                    ('{"calibration": ["1x64x64"]}', "{not json\n", "timings.jsonl cannot be read")):
        d = tmp_path / "ds"
        d.mkdir(exist_ok=True)
        (d / "split.json").write_text(split)
        (d / "timings.jsonl").write_text(timings)
        family = tmp_path / "family.json"  # a copy: the script writes the family it is given
        family.write_text((root / "data/families/triton.json").read_text())
        p = subprocess.run([sys.executable, str(root / "scripts/fit_splitk.py"), str(d), str(family), "--marginal"],
                           capture_output=True, text=True)
        assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and message in p.stderr, (split, p.stderr)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    p = subprocess.run([sys.executable, str(root / "scripts/fit_splitk.py"), str(root / "data/h200-triton-splitk-v1"),
                        str(bad)], capture_output=True, text=True)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "not a family file" in p.stderr, p.stderr


def test_fit_script_keeps_the_split_gemm_s_constants_and_tolerates_a_bare_section(tmp_path):
    """fit_splitk.py writes the reduction's three constants and keeps the split GEMM's own; a family whose
    split_k section is not an object, or whose constants are not, gets a fresh section, no traceback."""
    import pathlib
    import subprocess
    root = pathlib.Path(__file__).resolve().parents[2]
    shipped = json.loads((root / "data/families/triton.json").read_text())
    for section in (shipped["split_k"], [], {"constants": [1, 2]}, {"constants": None}, "x"):
        f = dict(shipped)
        f["split_k"] = section
        family = tmp_path / "family.json"
        family.write_text(json.dumps(f))
        p = subprocess.run([sys.executable, str(root / "scripts/fit_splitk.py"), str(root / "data/h200-triton-splitk-v1"),
                            str(family), "--per-split"], capture_output=True, text=True)
        assert p.returncode == 0, (section, p.stderr)
        got = json.loads(family.read_text())["split_k"]["constants"]
        assert {"reduce_gbps", "reduce_launch_us", "reduce_split_us"} <= set(got), section
        if section is shipped["split_k"]:
            assert got["partial_store_share"] == shipped["split_k"]["constants"]["partial_store_share"]
            assert got["split_dram_share"] == shipped["split_k"]["constants"]["split_dram_share"]
        else:
            assert set(got) == {"reduce_gbps", "reduce_launch_us", "reduce_split_us"}, section
