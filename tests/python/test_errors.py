"""The error contract: bad input raises tileplan.Error (a ValueError) with the
CLI's message, keyword for flag, or TypeError for a value of the wrong type;
no input crashes the interpreter."""

import itertools
import random

import pytest

import tileplan
from conftest import as_keywords, cli_error

SIZE = (4096, 4096, 4096)
SIZE_FLAGS = ["--m", 4096, "--n", 4096, "--k", 4096]
TOO_BIG = 2**64  # does not fit in 64 bits


def plan(**kw):
    return lambda: tileplan.plan(*SIZE, **kw)


def diagnose(**kw):
    return lambda: tileplan.diagnose(*SIZE, **kw)


# (call, the same input as CLI arguments, the keyword the error names)
CASES = [
    (plan(dtype="int8"), ["tile", "--dtype", "int8"], "dtype"),
    (plan(out_dtype="float8_e4m3"), ["tile", "--out-dtype", "float8_e4m3"], "out_dtype"),
    (plan(a_layout="diag"), ["tile", "--a-layout", "diag"], "a_layout"),
    (plan(b_layout="ROW"), ["tile", "--b-layout", "ROW"], "b_layout"),
    (lambda: tileplan.plan(-1, 64, 64), ["tile", "--m=-1", "--n", 64, "--k", 64], "m"),
    (lambda: tileplan.plan(64, 0, 64), ["tile", "--m", 64, "--n", 0, "--k", 64], "n"),
    (lambda: tileplan.plan(64, 64, 2**31), ["tile", "--m", 64, "--n", 64, "--k", 2**31], "k"),
    (lambda: tileplan.plan(TOO_BIG, 64, 64), ["tile", "--m", TOO_BIG, "--n", 64, "--k", 64], "m"),
    (lambda: tileplan.plan(2**31 - 1, 2**31 - 1, 2**31 - 1, dtype="tfloat32"),
     ["tile", "--m", 2**31 - 1, "--n", 2**31 - 1, "--k", 2**31 - 1, "--dtype", "tfloat32"], "m/n/k"),
    (plan(lda=5), ["tile", "--lda", 5], "lda"),
    (plan(ldc=-3), ["tile", "--ldc=-3"], "ldc"),
    (plan(ldb=TOO_BIG), ["tile", "--ldb", TOO_BIG], "ldb"),
    (plan(device="b200"), ["tile", "--device", "b200"], "device"),
    (plan(sm_count=0), ["tile", "--sm-count", 0], "sm_count"),
    (plan(smem_kb=2**31), ["tile", "--smem-kb", 2**31], "smem_kb"),
    (plan(instr="tensor"), ["tile", "--instr", "tensor"], "instr"),
    (plan(model="fast"), ["tile", "--model", "fast"], "model"),
    (plan(family="nope"), ["tile", "--family", "nope"], "family"),
    (plan(family_file="/nonexistent/family.json"), ["tile", "--family-file", "/nonexistent/family.json"],
     "family_file"),
    (plan(model="seed", family="triton"), ["tile", "--model", "seed", "--family", "triton"], "family"),
    (plan(model="seed", family_file="x.json"), ["tile", "--model", "seed", "--family-file", "x.json"], "family_file"),
    (plan(family="seed", family_file="x.json"), ["tile", "--family", "seed", "--family-file", "x.json"], "family"),
    (plan(top_k=-1), ["tile", "--topk=-1"], "top_k"),
    (plan(top_k=TOO_BIG), ["tile", "--topk", TOO_BIG], "top_k"),
    (plan(block_m=[0]), ["tile", "--block-m", 0], "block_m"),
    (plan(block_k=[64, 100000]), ["tile", "--block-k", "64,100000"], "block_k"),
    (plan(threads=-32), ["tile", "--threads=-32"], "threads"),
    (plan(stages=[2, TOO_BIG]), ["tile", "--stages", f"2,{TOO_BIG}"], "stages"),
    (plan(block_m=range(1, 129), block_n=range(1, 129), stages=range(1, 65)),
     ["tile", "--block-m", ",".join(map(str, range(1, 129))), "--block-n", ",".join(map(str, range(1, 129))),
      "--stages", ",".join(map(str, range(1, 65)))],
     "the search space (block_m x block_n x block_k x stages x threads x split_k)"),
    (diagnose(block_m=0), ["tile", "--diagnose", "--block-m", 0], "block_m"),
    (diagnose(threads=2**20), ["tile", "--diagnose", "--threads", 2**20], "threads"),
    (diagnose(dtype="fp16"), ["tile", "--diagnose", "--dtype", "fp16"], "dtype"),
    (lambda: tileplan.occupancy(0, 32), ["occupancy", "--threads", 0, "--regs", 32], "threads"),
    (lambda: tileplan.occupancy(128, -1), ["occupancy", "--threads", 128, "--regs=-1"], "regs"),
    (lambda: tileplan.occupancy(128, 32, smem=-1), ["occupancy", "--threads", 128, "--regs", 32, "--smem=-1"],
     "smem"),
    (lambda: tileplan.occupancy(128, 32, smem_static=64 * 1024),
     ["occupancy", "--threads", 128, "--regs", 32, "--smem-static", 64 * 1024], "smem_static"),
    (lambda: tileplan.occupancy(128, 32, smem=2**40),
     ["occupancy", "--threads", 128, "--regs", 32, "--smem", 2**40], "smem"),
    (lambda: tileplan.occupancy(128, 32, carveout=101),
     ["occupancy", "--threads", 128, "--regs", 32, "--carveout", 101], "carveout"),
    (lambda: tileplan.occupancy(128, 32, device="x"), ["occupancy", "--threads", 128, "--regs", 32, "--device", "x"],
     "device"),
    (lambda: tileplan.loop([0]), ["loop", "--extents", 0], "extents"),
    (lambda: tileplan.loop([128, 30]), ["loop", "--extents", 128, 30], "vector"),
    (lambda: tileplan.loop([128, 32], threads=0), ["loop", "--threads", 0], "threads"),
    (lambda: tileplan.loop([128, 32], vector="wide"), ["loop", "--vector", "wide"], "vector"),
    (lambda: tileplan.loop([128, 32], dtype="float7"), ["loop", "--dtype", "float7"], "dtype"),
    (lambda: tileplan.loop([128, 32], scope="texture"), ["loop", "--scope", "texture"], "scope"),
    (lambda: tileplan.loop([128, 32], access=[0, 0]), ["loop", "--access", "0,0"], "access"),
    (lambda: tileplan.loop([128, 32], buffer_shape=[10, 10]), ["loop", "--buffer-shape", "10,10"], "buffer_shape"),
    (lambda: tileplan.loop([128, 32], origin=[-1, 0]), ["loop", "--origin=-1,0"], "origin"),
    (lambda: tileplan.loop([2] * 17), ["loop", "--extents", *([2] * 17)], "extents"),
    (lambda: tileplan.loop([2**13, 2**12], threads=1024, points=True),
     ["loop", "--extents", 2**13, 2**12, "--threads", 1024, "--points"], "points"),
    (lambda: tileplan.loop([128, 32], device="gpu"), ["loop", "--device", "gpu"], "device"),
    (lambda: tileplan.device("x"), ["devices", "--device", "x"], "device"),
    (lambda: tileplan.families(family="nope"), ["families", "--family", "nope"], "family"),
    (lambda: tileplan.families(family_file="/nonexistent.json"), ["families", "--family-file", "/nonexistent.json"],
     "family_file"),
]


@pytest.mark.parametrize("call,flags,param", CASES, ids=[f"{c[1][0]}-{c[2]}-{i}" for i, c in enumerate(CASES)])
def test_error_has_the_cli_message(call, flags, param):
    if flags[0] == "tile" and not any(str(f).startswith(("--m", "--n", "--k")) for f in flags):
        flags = flags + SIZE_FLAGS
    expected = as_keywords(cli_error(*flags))
    with pytest.raises(tileplan.Error) as info:
        call()
    assert str(info.value) == expected
    assert info.value.param == param
    assert str(info.value).startswith(param)
    assert info.value.kind in {"invalid_argument", "out_of_range", "not_found", "parse_error", "io_error"}
    assert isinstance(info.value, ValueError)


def test_python_results_are_bounded():
    # The CLI streams these; a Python result is held whole: refused with the rule, not an exhausted memory.
    with pytest.raises(tileplan.Error, match=r"^top_k 0 keeps 91525 candidates; a Python result holds at most 65536"):
        tileplan.plan(*SIZE, block_m=range(1, 513), block_n=range(1, 257), block_k=16, stages=2, threads=512,
                      instr="simt", top_k=0)
    assert len(tileplan.plan(*SIZE, block_m=range(1, 513), block_n=range(1, 257), block_k=16, stages=2, threads=512,
                             instr="simt", top_k=65536)) == 65536
    with pytest.raises(tileplan.Error, match=r"^points: the nest has 524288 \(thread, point\) pairs; a Python listing "
                                             r"holds at most 262144"):
        tileplan.loop([2**10, 2**9], threads=1024, points=True)
    assert len(tileplan.loop([2**9, 2**9], threads=1024, vector=1, points=True).points) == 2**18


def test_error_kinds_follow_the_library():
    with pytest.raises(tileplan.Error) as info:
        tileplan.plan(*SIZE, device="b200")
    assert info.value.kind == "not_found"
    with pytest.raises(tileplan.Error) as info:
        tileplan.plan(TOO_BIG, 1, 1)
    assert info.value.kind == "out_of_range"
    with pytest.raises(tileplan.Error) as info:
        tileplan.plan(*SIZE, family_file="/nonexistent/family.json")
    assert info.value.kind == "io_error"


def test_family_file_parse_error_names_the_keyword(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    expected = as_keywords(cli_error("tile", "--family-file", bad))
    with pytest.raises(tileplan.Error) as info:
        tileplan.plan(*SIZE, family_file=bad)
    assert str(info.value) == expected and info.value.kind == "parse_error"


@pytest.mark.parametrize("key", ["block_m", "stages"])
def test_empty_list_is_an_error(key):
    with pytest.raises(tileplan.Error, match=f"^{key}: the list is empty; give one or more integers$"):
        tileplan.plan(*SIZE, **{key: []})


@pytest.mark.parametrize("call", [
    lambda: tileplan.plan("4096", 64, 64),
    lambda: tileplan.plan(4096.0, 64, 64),
    lambda: tileplan.plan(True, 64, 64),
    lambda: tileplan.plan(*SIZE, dtype=16),
    lambda: tileplan.plan(*SIZE, out_dtype=b"float16"),
    lambda: tileplan.plan(*SIZE, device=None),
    lambda: tileplan.plan(*SIZE, block_m="64"),
    lambda: tileplan.plan(*SIZE, block_m=[64.0]),
    lambda: tileplan.plan(*SIZE, block_m=[64, None]),
    lambda: tileplan.plan(*SIZE, top_k=1.5),
    lambda: tileplan.plan(*SIZE, family_file=3),
    lambda: tileplan.plan(*SIZE, unknown=1),
    lambda: tileplan.diagnose(*SIZE, block_m=[128]),
    lambda: tileplan.occupancy("128", 32),
    lambda: tileplan.loop(None),
    lambda: tileplan.loop([128, 32], vector=8.0),
    lambda: tileplan.loop([128, 32], replicate=1),
    lambda: tileplan.device(0),
])
def test_wrong_types_raise_type_error(call):
    with pytest.raises(TypeError):
        call()


def test_numpy_style_integers_are_ints():
    class Index:  # numpy.int64 and the like: __index__, not int
        def __init__(self, v):
            self.v = v

        def __index__(self):
            return self.v

    assert tileplan.plan(Index(4096), 4096, 4096, top_k=1)[0].to_dict() == tileplan.plan(*SIZE, top_k=1)[0].to_dict()


def test_str_that_utf8_cannot_hold():
    with pytest.raises(tileplan.Error, match="^dtype '.*' is not one of"):
        tileplan.plan(*SIZE, dtype="\ud800")


# Values of every kind: the right types at and past every limit, wrong types, odd text.
POOL = [None, True, False, 0, -1, 1, 7, 16, 64, 128, 256, 2**31 - 1, 2**31, 2**63 - 1, 2**63, -2**63, 2**64, 10**30,
        1.5, float("nan"), "", "row", "col", "float16", "float8_e4m3", "tfloat32", "h200", "auto", "seed", "\x00",
        "\ud800", "é" * 300, b"16", [], [0], [16, 64], [2**63], ["64"], [1.0], (128,), range(16, 80, 16), {}, object()]


def fuzz(function, positional, keywords, calls, seed):
    rng = random.Random(seed)
    outcomes = {"ok": 0, "Error": 0, "TypeError": 0}
    for _ in range(calls):
        args = [rng.choice(POOL) if rng.random() < 0.3 else v for v in positional]
        kw = {k: rng.choice(POOL) for k in rng.sample(keywords, rng.randint(1, 3))}
        try:
            function(*args, **kw)
            outcomes["ok"] += 1
        except tileplan.Error:
            outcomes["Error"] += 1
        except TypeError:
            outcomes["TypeError"] += 1
    return outcomes


PLAN_KEYWORDS = ["dtype", "out_dtype", "a_layout", "b_layout", "lda", "ldb", "ldc", "device", "sm_count", "smem_kb",
                 "block_m", "block_n", "block_k", "stages", "threads", "top_k", "model", "family", "instr"]


def test_fuzz_plan_never_crashes():
    outcomes = fuzz(tileplan.plan, [256, 512, 1024], PLAN_KEYWORDS, 1500, 1)
    assert all(outcomes.values()), outcomes  # each kind of outcome happened


def test_fuzz_diagnose_never_crashes():
    outcomes = fuzz(tileplan.diagnose, [256, 512, 1024], PLAN_KEYWORDS[:-6] + ["block_m", "threads", "instr"], 800, 2)
    assert all(outcomes.values()), outcomes


def test_fuzz_occupancy_never_crashes():
    outcomes = fuzz(tileplan.occupancy, [256, 64], ["smem", "smem_static", "carveout", "device", "sm_count",
                                                   "smem_kb"], 800, 3)
    assert all(outcomes.values()), outcomes


def test_fuzz_loop_never_crashes():
    outcomes = fuzz(tileplan.loop, [[64, 32]], ["threads", "vector", "dtype", "scope", "buffer_shape", "access",
                                               "origin", "replicate", "device"], 800, 4)
    assert all(outcomes.values()), outcomes


def test_every_device_and_model_plans():
    for device, model, instr in itertools.product([d.name for d in tileplan.devices()], ["calibrated", "seed"],
                                                  ["wgmma", "mma", "simt"]):
        p = tileplan.plan(1000, 1000, 1000, device=device, model=model, instr=instr, top_k=2)
        assert p.problem.m == 1000 and p.model == model
