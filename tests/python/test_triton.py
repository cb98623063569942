"""tileplan.triton against stand-ins for triton.Config and torch tensors (Triton is not needed)."""

import itertools
import random
import subprocess
import sys
import types
import warnings

import pytest

import tileplan
import tileplan.triton as tt
from conftest import run_cli


class Config:
    """What prune reads of a triton.Config."""

    def __init__(self, kwargs, num_warps=4, num_stages=3):
        self.kwargs, self.num_warps, self.num_stages = kwargs, num_warps, num_stages

    def __repr__(self):
        return f"Config({self.kwargs}, num_warps={self.num_warps}, num_stages={self.num_stages})"


class DType:
    """A torch.dtype: str() gives 'torch.float16'."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


class Tensor:
    """What prune reads of a torch.Tensor: dtype, shape, stride()."""

    def __init__(self, shape, dtype="float16", strides=None):
        self.shape, self.dtype = tuple(shape), DType(dtype)
        self._strides = tuple(strides) if strides else (shape[1], 1)

    def stride(self, dim=None):
        return self._strides if dim is None else self._strides[dim]


GRID = [Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, num_warps=w, num_stages=s)
        for bm, bn, bk, s, w in itertools.product([64, 128, 256], [64, 128, 256], [32, 64, 128], [2, 3, 4], [4, 8])]


def gemm_args(m, n, k, dtype="float16", out="float16", a_col=False, b_col=False, pad=0):
    """The Triton tutorial's arguments: a_ptr, b_ptr, c_ptr, M, N, K (and strides as ints)."""
    a = Tensor((m, k), dtype, (1, m + pad) if a_col else (k + pad, 1))
    b = Tensor((k, n), dtype, (1, k + pad) if b_col else (n + pad, 1))
    c = Tensor((m, n), out)
    return {"a_ptr": a, "b_ptr": b, "c_ptr": c, "M": m, "N": n, "K": k, "stride_am": a.stride(0),
            "stride_ak": a.stride(1), "ACTIVATION": ""}


def predicted_order(configs, m, n, k, **problem):
    """Independently: each config diagnosed, the candidates sorted by predicted time (ties: given order);
    where the stage count changes nothing (the plan's stages_inert), the first of each tile, then the repeats."""
    timed = []
    for i, c in enumerate(configs):
        v = tileplan.diagnose(m, n, k, block_m=c.kwargs["BLOCK_M"], block_n=c.kwargs["BLOCK_N"],
                              block_k=c.kwargs["BLOCK_K"], stages=c.num_stages, threads=32 * c.num_warps, **problem)
        if v.feasible and c.kwargs["BLOCK_K"] <= k:
            timed.append((v.predicted_us, i))
    timed.sort()
    if tileplan.plan(m, n, k, top_k=1, **problem).stages_inert:
        seen, first, repeats = set(), [], []
        for t, i in timed:
            c = configs[i]
            tile = (c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"], c.kwargs["BLOCK_K"], c.num_warps)
            (repeats if tile in seen else first).append((t, i))
            seen.add(tile)
        timed = first + repeats
    return [configs[i] for _, i in timed], timed


def hook(**kw):
    return tt.prune(**kw)["early_config_prune"]


PROBLEMS = [
    ((4096, 4096, 4096), {}, {}),
    ((128, 4096, 4096), {}, {}),
    ((1000, 3000, 520), {"dtype": "bfloat16", "out": "float32"}, {"dtype": "bfloat16", "out_dtype": "float32"}),
    ((2048, 8192, 1024), {"dtype": "float8_e4m3fn", "b_col": True},
     {"dtype": "float8_e4m3", "b_layout": "col", "out_dtype": "float16"}),
    ((512, 512, 8192), {"dtype": "float32", "out": "float32", "a_col": True},
     {"dtype": "tfloat32", "a_layout": "col", "out_dtype": "float32"}),
    ((4096, 1024, 4096), {"pad": 8}, {"lda": 4104, "ldb": 1032}),
    ((4096, 1024, 4096), {"dtype": "float8_e5m2", "b_col": True, "pad": 3},
     {"dtype": "float8_e5m2", "b_layout": "col", "lda": 4099, "ldb": 4099, "out_dtype": "float16"}),
]


@pytest.mark.parametrize("size,tensors,problem", PROBLEMS)
def test_prune_keeps_the_best_by_predicted_time(size, tensors, problem):
    expected, timed = predicted_order(GRID, *size, **problem)
    assert len(expected) > 3
    out = hook(top_k=3)(GRID, gemm_args(*size, **tensors))
    assert out == expected[:3]
    times = [t for t, _ in timed[:3]]
    assert times == sorted(times)
    tiles = {(c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"], c.kwargs["BLOCK_K"], c.num_warps) for c in out}
    if tileplan.plan(*size, top_k=1, **problem).stages_inert:
        assert len(tiles) == 3  # three distinct tiles, not one tile at three stage counts


@pytest.mark.parametrize("top_k", [1, 2, 7, 0])
def test_prune_respects_top_k(top_k):
    expected, _ = predicted_order(GRID, 1024, 1024, 1024)
    out = hook(top_k=top_k)(GRID, gemm_args(1024, 1024, 1024))
    assert out == (expected if top_k == 0 else expected[:top_k])
    assert len(out) == (len(expected) if top_k == 0 else top_k)


def test_prune_keeps_unmapped_configs_last_and_warns_once():
    odd = [Config({"BLOCK_M": 64}), Config({"BLOCK_M": "64", "BLOCK_N": 64, "BLOCK_K": 32}),
           Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=None), object(),
           Config({"BLOCK_M": 0, "BLOCK_N": 64, "BLOCK_K": 32}), Config({"BLOCK_M": True, "BLOCK_N": 64, "BLOCK_K": 32}),
           Config({"BLOCK_M": 2**70, "BLOCK_N": 64, "BLOCK_K": 32})]
    configs = GRID[:10] + odd[:3] + GRID[10:] + odd[3:]
    h = hook(top_k=4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = h(configs, gemm_args(4096, 4096, 4096))
        second = h(configs, gemm_args(2048, 2048, 2048))
    expected, _ = predicted_order(GRID, 4096, 4096, 4096)
    assert first == expected[:4] + odd
    assert second[4:] == odd
    assert len(caught) == 1 and "7 of" in str(caught[0].message) and "kept after the ranked ones" in str(
        caught[0].message)


def test_prune_never_returns_an_empty_list():
    # K = 8: every BLOCK_K of the grid is larger, no config is a candidate.
    with pytest.warns(UserWarning, match="no config is feasible"):
        out = hook(top_k=3)(GRID, {"M": 4096, "N": 4096, "K": 8})
    assert out == GRID[:3]
    # A type tileplan does not model: unranked, every config kept.
    with pytest.warns(UserWarning, match="int8"):
        out = hook(top_k=3)(GRID, gemm_args(4096, 4096, 4096, dtype="int8"))
    assert out == GRID
    with pytest.warns(UserWarning, match="no argument 'M'"):
        assert hook()(GRID, {}) == GRID
    with pytest.warns(UserWarning, match="no config is feasible for 1x1x1"):
        assert hook()(GRID[:1], {"M": 1, "N": 1, "K": 1}) == GRID[:1]


def test_prune_without_tensors_assumes_packed_float16():
    expected, _ = predicted_order(GRID, 768, 3072, 1024)  # the default problem: float16, row, packed
    sizes_only = {"M": 768, "N": 3072, "K": 1024, "alpha": 1.0}
    assert hook(top_k=5)(GRID, sizes_only) == expected[:5]
    assert hook(top_k=5)(GRID, gemm_args(768, 3072, 1024)) == expected[:5]
    assert tt.problem_from_args(sizes_only) == {"m": 768, "n": 3072, "k": 1024, "dtype": "float16", "out_dtype": None,
                                                "a_layout": "row", "b_layout": "row", "lda": 0, "ldb": 0, "ldc": 0}


def test_prune_reads_keyword_arguments_and_custom_names():
    configs = [Config({"BLOCK_SIZE_M": c.kwargs["BLOCK_M"], "BLOCK_SIZE_N": c.kwargs["BLOCK_N"],
                       "BLOCK_SIZE_K": c.kwargs["BLOCK_K"]}, c.num_warps, c.num_stages) for c in GRID]
    h = hook(top_k=3, m="rows", n="cols", k="depth", a="x", b="w", c="y", block_m_key="BLOCK_SIZE_M",
             block_n_key="BLOCK_SIZE_N", block_k_key="BLOCK_SIZE_K")
    args = gemm_args(640, 8192, 4096, dtype="bfloat16")
    nargs = {"bias": Tensor((8192, 1), "float32"), "x": args["a_ptr"], "rows": 640, "cols": 8192}
    out = h(configs, nargs, w=args["b_ptr"], y=args["c_ptr"], depth=4096)
    expected, _ = predicted_order(GRID, 640, 8192, 4096, dtype="bfloat16")
    assert [configs.index(c) for c in out] == [GRID.index(c) for c in expected[:3]]


def test_problem_from_args_maps_dtypes_layouts_and_strides():
    assert tt.problem_from_args(gemm_args(64, 32, 16, "float8_e4m3fn", "bfloat16", a_col=True, b_col=True, pad=16)) == {
        "m": 64, "n": 32, "k": 16, "dtype": "float8_e4m3", "out_dtype": "bfloat16", "a_layout": "col",
        "b_layout": "col", "lda": 80, "ldb": 32, "ldc": 32}
    for torch_name, name in [("float16", "float16"), ("bfloat16", "bfloat16"), ("float8_e4m3fn", "float8_e4m3"),
                             ("float8_e5m2", "float8_e5m2"), ("float32", "tfloat32")]:
        assert tt.problem_from_args(gemm_args(64, 64, 64, torch_name))["dtype"] == name
    # Sizes from the tensors' shapes when no size argument names them.
    no_sizes = {k: v for k, v in gemm_args(96, 80, 48).items() if k not in ("M", "N", "K")}
    p = tt.problem_from_args(no_sizes)
    assert (p["m"], p["n"], p["k"]) == (96, 80, 48)
    # An fp8 C has no tileplan type: the default output type for the input type.
    assert tt.problem_from_args(gemm_args(64, 64, 64, "float8_e5m2", "float8_e5m2"))["out_dtype"] is None
    with pytest.raises(tileplan.Error, match="neither row- nor column-contiguous"):
        tt.problem_from_args({"a": Tensor((64, 64), strides=(128, 2)), "M": 64, "N": 64, "K": 64})
    with pytest.raises(tileplan.Error, match="C is column-contiguous"):
        tt.problem_from_args({"a": Tensor((64, 64)), "b": Tensor((64, 64)), "c": Tensor((64, 64), strides=(1, 64))})
    with pytest.raises(tileplan.Error, match="argument 'K'"):
        tt.problem_from_args({"M": 64, "N": 64, "K": "64"})


def test_prune_settings_are_checked_when_decorating():
    with pytest.raises(tileplan.Error, match="^device 'x' is not a preset"):
        tt.prune(device="x")
    with pytest.raises(tileplan.Error, match=r"^top_k -1 must be at least 0"):
        tt.prune(top_k=-1)
    with pytest.raises(TypeError):
        tt.prune(top_k="3")
    with pytest.raises(tileplan.Error, match="^family triton needs model calibrated"):
        tt.prune(model="seed", family="triton")


def test_prune_hook_never_raises_and_never_empties():
    rng = random.Random(7)
    h = hook(top_k=2)
    odd_values = [None, -1, 0, 2**80, "M", 1.5, Tensor((4, 4)), Tensor((4,), strides=(1,)), object(), [1, 2]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(300):
            args = gemm_args(*(rng.choice([1, 16, 100, 4096]) for _ in range(3)))
            for key in rng.sample(sorted(args), rng.randint(0, 3)):
                args[key] = rng.choice(odd_values)
            configs = rng.sample(GRID, rng.randint(1, 6)) + [Config({"BLOCK_M": rng.choice(odd_values)})]
            out = h(configs, args)
            assert out and all(c in configs for c in out)
        assert h(GRID, None) == GRID


def fake_triton():
    module = types.ModuleType("triton")
    module.Config = Config
    return module


def emitted_triton(*flags):
    """The Config objects `tileplan tile --emit triton` prints, evaluated against the stand-in."""
    rc, out, err = run_cli("tile", *flags, "--emit", "triton")
    assert rc == 0, err
    namespace = {"triton": fake_triton()}
    return [eval(line[:line.rindex("),") + 1], namespace) for line in out.splitlines() if line.startswith("triton.")]


def test_batch_emit_is_python_whose_lists_join_each_shapes_configs(monkeypatch, tmp_path):
    """`tile --shapes F --emit triton` runs as Python as printed; each list is the
    union of tileplan.triton.configs(top_k=3) over its kernel's shapes."""
    shapes = [(4096, 4096, 4096, "float16", "row"), (1000, 4096, 1000, "float16", "row"),
              (16, 14336, 4096, "bfloat16", "col"), (1000, 6144, 4096, "bfloat16", "col"),
              (4096, 4096, 4096, "float16", "row")]
    path = tmp_path / "shapes.txt"
    path.write_text("".join(f"{m} {n} {k} {d} row {b}\n" for m, n, k, d, b in shapes))
    rc, out, err = run_cli("tile", "--shapes", path, "--emit", "triton")
    assert rc == 0, err
    monkeypatch.setitem(sys.modules, "triton", fake_triton())
    namespace = {"triton": fake_triton()}
    exec(out, namespace)  # noqa: S102 - the printed text is meant to be pasted into Python
    lists = {name: value for name, value in namespace.items() if name.startswith("configs_")}
    assert sorted(lists) == ["configs_bfloat16_bfloat16_row_col", "configs_float16_float16_row_row"]

    def key(c):
        return tuple(sorted(c.kwargs.items())), c.num_warps, c.num_stages

    for name, got in lists.items():
        dtype, b_layout = ("bfloat16", "col") if "bfloat16" in name else ("float16", "row")
        want = set()
        for m, n, k, d, b in shapes:
            if d == dtype:
                want |= {key(c) for c in tt.configs(m, n, k, dtype=dtype, b_layout=b_layout, top_k=3)}
        assert len({key(c) for c in got}) == len(got), f"{name} lists a configuration twice"
        assert {key(c) for c in got} == want, name


def emitted_lists(path, *flags):
    """The configs_* lists `tileplan tile --shapes PATH --emit triton` prints, run against the stand-in."""
    rc, out, err = run_cli("tile", "--shapes", path, "--emit", "triton", *flags)
    assert rc == 0, err
    namespace = {"triton": fake_triton()}
    exec(out, namespace)  # noqa: S102
    return {name: value for name, value in namespace.items() if name.startswith("configs_")}


@pytest.mark.parametrize("kw,flags", [
    ({}, []),
    ({"top_k": 1}, ["--topk", "1"]),
    ({"top_k": 5, "split_k": [1, 2, 3, 4]}, ["--topk", "5", "--split-k", "1,2,3,4"]),
])
def test_configs_for_shapes_is_the_batch_emitters_list_in_its_order(monkeypatch, tmp_path, kw, flags):
    shapes = [(1000, 6144, 4096), (16, 4096, 14336), (1000, 4096, 4096), (16, 128256, 4096), (1000, 4096, 4096),
              (333, 5001, 4001)]
    path = tmp_path / "shapes.txt"
    path.write_text("".join(f"{m} {n} {k} bfloat16 row col\n" for m, n, k in shapes))
    monkeypatch.setitem(sys.modules, "triton", fake_triton())
    got = tt.configs_for_shapes(shapes, dtype="bfloat16", b_layout="col", **kw)
    want = emitted_lists(path, *flags)["configs_bfloat16_bfloat16_row_col"]
    assert [(c.kwargs, c.num_warps, c.num_stages) for c in got] == [(c.kwargs, c.num_warps, c.num_stages) for c in want]
    # Mappings with leading dimensions are problems of their own: 4000 is not the packed K.
    padded = tt.configs_for_shapes([{"m": 1000, "n": 4096, "k": 4000, "lda": 4096}], top_k=1)
    assert [(c.kwargs, c.num_stages) for c in padded] == [(c.kwargs, c.num_stages) for c in
                                                          tt.configs(1000, 4096, 4000, lda=4096, top_k=1)]


def test_configs_for_shapes_refuses_what_it_cannot_plan(monkeypatch):
    monkeypatch.setitem(sys.modules, "triton", fake_triton())
    with pytest.raises(tileplan.Error, match="^shapes: empty"):
        tt.configs_for_shapes([])
    with pytest.raises(tileplan.Error, match=r"^shapes: item 1 must be \(m, n, k\)"):
        tt.configs_for_shapes([(64, 64, 64), (64, 64)])
    with pytest.raises(tileplan.Error, match="^shapes: item 0 must have m, n, k"):
        tt.configs_for_shapes([{"m": 64, "n": 64, "kk": 64}])
    with pytest.raises(tileplan.Error, match="^m "):
        tt.configs_for_shapes([(0, 64, 64)])
    with pytest.raises(tileplan.Error, match="^top_k -1"):
        tt.configs_for_shapes([(64, 64, 64)], top_k=-1)
    with pytest.raises(TypeError, match="^shapes must be an iterable"):
        tt.configs_for_shapes(5)
    with pytest.raises(TypeError, match="^m must be an int, not str"):
        tt.configs_for_shapes(["abc"])
    with pytest.raises(tileplan.Error, match="does not fit in a 64-bit integer"):
        tt.configs_for_shapes([(2**80, 64, 64)])
    with pytest.raises(tileplan.Error, match="^m is 1099511627776: a GEMM dimension must be at most"):
        tt.configs_for_shapes([(2**40, 2**40, 2**40)])
    with pytest.raises(tileplan.Error, match="^lda -5 must be 0"):
        tt.configs_for_shapes([{"m": 64, "n": 64, "k": 64, "lda": -5}])
    with pytest.raises(tileplan.Error, match="no configuration is feasible for any of the 1 shape"):
        tt.configs_for_shapes([(64, 64, 16)], block_k=[64])
    with pytest.warns(UserWarning, match=r"no feasible configuration for 1 of 2 shape\(s\) \(64x64x16\)"):
        kept = tt.configs_for_shapes([(64, 64, 16), (64, 64, 64)], block_k=[32, 64])
    assert kept and all(c.kwargs["BLOCK_K"] <= 64 for c in kept)


@pytest.mark.parametrize("size,kw,flags", [
    ((4096, 4096, 4096), {}, []),
    ((128, 4096, 4096), {"top_k": 3}, ["--topk", 3]),
    ((1000, 1000, 777), {"dtype": "bfloat16", "b_layout": "col", "top_k": 5, "stages": [2, 3]},
     ["--dtype", "bfloat16", "--b-layout", "col", "--topk", 5, "--stages", "2,3"]),
    ((64, 64, 64), {"device": "a100-sxm", "instr": "mma", "model": "seed"},
     ["--device", "a100-sxm", "--instr", "mma", "--model", "seed"]),
])
def test_configs_are_the_cli_emitted_ones(monkeypatch, size, kw, flags):
    monkeypatch.setitem(sys.modules, "triton", fake_triton())
    got = tt.configs(*size, **kw)
    want = emitted_triton("--m", size[0], "--n", size[1], "--k", size[2], *flags)
    assert [(c.kwargs, c.num_warps, c.num_stages) for c in got] == [(c.kwargs, c.num_warps, c.num_stages) for c in want]
    assert got and all(isinstance(c, Config) for c in got)


def test_configs_key_names(monkeypatch):
    monkeypatch.setitem(sys.modules, "triton", fake_triton())
    got = tt.configs(4096, 4096, 4096, top_k=2, block_m_key="BLOCK_SIZE_M", block_n_key="BLOCK_SIZE_N",
                     block_k_key="BLOCK_SIZE_K", group_m_key=None)
    best = tileplan.plan(4096, 4096, 4096, top_k=1)[0]
    assert got[0].kwargs == {"BLOCK_SIZE_M": best.block_m, "BLOCK_SIZE_N": best.block_n, "BLOCK_SIZE_K": best.block_k}
    assert got[0].num_warps == best.threads // 32 and got[0].num_stages == best.stages


def test_configs_needs_triton(monkeypatch):
    monkeypatch.setitem(sys.modules, "triton", None)  # import triton raises ImportError
    with pytest.raises(ImportError, match="needs Triton"):
        tt.configs(4096, 4096, 4096)


def test_imports_and_prunes_without_triton():
    code = ("import sys; sys.modules['triton'] = None\n"
            "import tileplan.triton, tileplan.tilelang\n"
            "h = tileplan.triton.prune(top_k=1)['early_config_prune']\n"
            "class C:\n    kwargs = {'BLOCK_M': 128, 'BLOCK_N': 128, 'BLOCK_K': 64}; num_warps = 4; num_stages = 3\n"
            "assert len(h([C(), C()], {'M': 512, 'N': 512, 'K': 512})) == 1\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=None)
    assert p.returncode == 0, p.stderr


def test_heuristics_pick_the_plan_first():
    values = tt.heuristics()
    assert list(values) == ["BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M", "num_warps", "num_stages"]
    for size, tensors, problem in PROBLEMS:
        args = gemm_args(*size, **tensors)
        best = tileplan.plan(*size, top_k=1, **problem)[0]
        picked = {key: f(args) for key, f in values.items()}
        assert picked == {"BLOCK_M": best.block_m, "BLOCK_N": best.block_n, "BLOCK_K": best.block_k, "GROUP_M": 8,
                          "num_warps": best.threads // 32, "num_stages": best.stages}


def test_heuristics_space_and_names():
    values = tt.heuristics(block_m_key="BM", group_m_key=None, num_stages=False, block_k=[32], threads=[128])
    assert list(values) == ["BM", "BLOCK_N", "BLOCK_K", "num_warps"]
    args = {"M": 4096, "N": 4096, "K": 4096}
    assert values["BLOCK_K"](args) == 32 and values["num_warps"](args) == 4
    with pytest.raises(tileplan.Error, match="no configuration of the search space is feasible"):
        values["BM"]({"M": 4096, "N": 4096, "K": 16})
    with pytest.raises(tileplan.Error, match="no argument 'M'"):
        values["BM"]({})
