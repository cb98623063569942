"""tileplan.tilelang.configs: the dicts @tilelang.autotune(configs=...) takes."""

import ast

import pytest

import tileplan
import tileplan.tilelang as tl
from conftest import run_cli

KEYS = ["block_M", "block_N", "block_K", "num_stages", "threads", "enable_rasteration"]


def emitted_tilelang(*flags):
    """The list `tileplan tile --emit tilelang` prints."""
    rc, out, err = run_cli("tile", *flags, "--emit", "tilelang")
    assert rc == 0, err
    body = "\n".join(line.split("  # ")[0] for line in out.splitlines() if not line.startswith("#"))
    return ast.literal_eval(body)


@pytest.mark.parametrize("size,kw,flags", [
    ((4096, 4096, 4096), {}, []),
    ((128, 11008, 4096), {"top_k": 4}, ["--topk", 4]),
    ((3000, 3000, 1000), {"dtype": "tfloat32", "top_k": 6, "block_k": [16, 32]},
     ["--dtype", "tfloat32", "--topk", 6, "--block-k", "16,32"]),
    ((2048, 2048, 2048), {"dtype": "float8_e4m3", "b_layout": "col", "out_dtype": "bfloat16"},
     ["--dtype", "float8_e4m3", "--b-layout", "col", "--out-dtype", "bfloat16"]),
    # A decode step: its best tiles have 16 rows, which compile to mma (instr auto on both sides).
    ((1, 4096, 4096), {"top_k": 5}, ["--topk", 5]),
])
def test_configs_match_the_cli_emitter(size, kw, flags):
    want = emitted_tilelang("--m", size[0], "--n", size[1], "--k", size[2], *flags)
    got = tl.configs(*size, **kw)
    assert got and len(got) == len(want)
    for g, w in zip(got, want):
        assert list(g) == KEYS
        assert g["enable_rasteration"] is True
        assert {k: g[k] for k in KEYS[:5]} == {k: w[k] for k in KEYS[:5]}
    with_types = tl.configs(*size, with_dtypes=True, **kw)
    assert [{k: v for k, v in c.items() if k != "enable_rasteration"} for c in with_types] == want


def test_decode_configs_hold_16_row_tiles():
    # instr auto, as the CLI: a wgmma-only sweep would fail C3 for every block_M below 64.
    got = tl.configs(1, 4096, 4096, top_k=5)
    assert got and got[0]["block_M"] == 16
    assert all(c["block_M"] >= 64 for c in tl.configs(1, 4096, 4096, top_k=5, instr="wgmma"))


def test_configs_options():
    got = tl.configs(4096, 4096, 4096, top_k=1, enable_rasteration=False)
    best = tileplan.plan(4096, 4096, 4096, top_k=1)[0]
    assert got == [{"block_M": best.block_m, "block_N": best.block_n, "block_K": best.block_k,
                    "num_stages": best.stages, "threads": best.threads, "enable_rasteration": False}]
    with pytest.raises(TypeError):
        tl.configs(4096, 4096, 4096, enable_rasteration=1)
    with pytest.raises(tileplan.Error, match="^dtype 'int4' is not one of"):
        tl.configs(4096, 4096, 4096, dtype="int4")
    assert tl.configs(4096, 4096, 8) == []  # every block_K is larger than K


@pytest.mark.parametrize("kw,flags", [
    ({}, []),
    ({"top_k": 1, "dtype": "float8_e4m3"}, ["--topk", "1"]),
    ({"top_k": 4, "split_k": [1, 2, 4]}, ["--topk", "4", "--split-k", "1,2,4"]),
])
def test_configs_for_shapes_is_the_batch_emitters_list_in_its_order(tmp_path, kw, flags):
    """The TileLang list of `tile --shapes F --emit tilelang`, dict for dict and in order."""
    dtype = kw.get("dtype", "bfloat16")
    shapes = [(1000, 6144, 4096), (16, 4096, 14336), (1000, 4096, 4096), (16, 128256, 4096), (333, 5001, 4096)]
    path = tmp_path / "shapes.txt"
    path.write_text("".join(f"{m} {n} {k} {dtype} row col\n" for m, n, k in shapes))
    rc, out, err = run_cli("tile", "--shapes", path, "--emit", "tilelang", *flags)
    assert rc == 0, err
    namespace = {}
    exec(out, namespace)  # noqa: S102 - the printed text is meant to be pasted into Python
    lists = [value for name, value in namespace.items() if name.startswith("configs_")]
    assert len(lists) == 1
    got = tl.configs_for_shapes(shapes, **{**kw, "dtype": dtype}, b_layout="col", with_dtypes=True)
    assert [{k: v for k, v in g.items() if k != "enable_rasteration"} for g in got] == lists[0]
    assert all(g["enable_rasteration"] is True for g in got)


def test_configs_for_shapes_refuses_what_it_cannot_plan():
    with pytest.raises(tileplan.Error, match="^shapes: empty"):
        tl.configs_for_shapes([])
    with pytest.raises(tileplan.Error, match=r"^shapes: item 0 must be \(m, n, k\)"):
        tl.configs_for_shapes([(64, 64, 64, 64)])
    with pytest.raises(TypeError, match="^enable_rasteration must be a bool"):
        tl.configs_for_shapes([(64, 64, 64)], enable_rasteration=1)
    with pytest.raises(tileplan.Error, match="^k is 0"):
        tl.configs_for_shapes([(64, 64, 0)])
    with pytest.warns(UserWarning, match=r"no feasible configuration for 1 of 2 shape\(s\) \(64x64x16\)"):
        kept = tl.configs_for_shapes([(64, 64, 64), (64, 64, 16)], block_k=[32, 64])
    assert kept and kept[0]["block_K"] in (32, 64)
