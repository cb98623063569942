"""tileplan inside TileLang's autotuner.

    @tilelang.autotune(configs=tileplan.tilelang.configs(M, N, K, top_k=10))
    # or, for a kernel's known shapes: tileplan.tilelang.configs_for_shapes([(M1, N1, K1), ...])
    @tilelang.jit(out_idx=[-1])
    def matmul(M, N, K, block_M=128, block_N=128, block_K=32, num_stages=3, threads=128,
               enable_rasteration=True): ...
"""

from . import plan
from ._shapes import union_of_tops
from .triton import _check_top_k, _planner, _space

__all__ = ["configs", "configs_for_shapes"]


def _tilelang_type(name):
    # tf32 operands are float32 arrays in TileLang; the tensor cores round them.
    return "float32" if name == "tfloat32" else name


def configs(m, n, k, *, dtype="float16", out_dtype=None, a_layout="row", b_layout="row", lda=0, ldb=0, ldc=0,
            top_k=15, device="h200", sm_count=None, smem_kb=None, power_budget=None, block_m=None, block_n=None,
            block_k=None, stages=None, threads=None, split_k=None, model="calibrated", family=None, family_file=None,
            instr="auto", enable_rasteration=True, with_dtypes=False):
    """The best top_k configurations as the dicts @tilelang.autotune(configs=...) takes, best first.

    Arguments as tileplan.plan. instr auto resolves each tile as TileLang's T.gemm picks its
    instruction (GemmNode::GetGemmInst in tile-ai/tilelang src/op/gemm.cc): wgmma on sm_90 for a
    block of at least 64 rows and whole warpgroups, mma otherwise, the rule tl.dot follows. Keys: block_M, block_N, block_K, num_stages, threads and
    enable_rasteration (the model ranks tiles in a grouped, rasterized order: True); with_dtypes
    adds in_dtype, out_dtype and accum_dtype in TileLang's names, as `tileplan tile --emit tilelang`;
    split_k (factors above 1) adds the key split_k, for a kernel that splits K.
    """
    _check_flags(enable_rasteration, with_dtypes)
    p = plan(m, n, k, dtype=dtype, out_dtype=out_dtype, a_layout=a_layout, b_layout=b_layout, lda=lda, ldb=ldb,
             ldc=ldc, device=device, sm_count=sm_count, smem_kb=smem_kb, power_budget=power_budget,
             block_m=block_m, block_n=block_n, block_k=block_k, stages=stages, threads=threads, split_k=split_k,
             top_k=top_k, model=model, family=family, family_file=family_file, instr=instr)
    return [_config(_key(c), p.problem, _splits(split_k), enable_rasteration, with_dtypes) for c in p]


def configs_for_shapes(shapes, *, dtype="float16", out_dtype=None, a_layout="row", b_layout="row", top_k=3,
                       device="h200", sm_count=None, smem_kb=None, power_budget=None, block_m=None, block_n=None,
                       block_k=None, stages=None, threads=None, split_k=None, model="calibrated", family=None,
                       family_file=None, instr="auto", enable_rasteration=True, with_dtypes=False):
    """One list of config dicts for a kernel's known shapes: @tilelang.autotune(configs=...).

    Every configuration in the first top_k of any shape, once, in the order `tileplan tile --shapes
    FILE --emit tilelang` prints them (by the shapes a configuration is the first pick for, then
    by all the shapes that rank it, then by first appearance), each shape's own first pick among
    them. shapes: (m, n, k) tuples, or mappings with "m", "n", "k" and optionally "lda", "ldb",
    "ldc"; every other argument as configs(), shared by all. A shape with no feasible
    configuration is left out with one warning naming it; none at all raises tileplan.Error.
    """
    _check_flags(enable_rasteration, with_dtypes)
    _check_top_k(top_k)
    # The shared planner of tileplan.triton (its class tables built once), not a plan per shape.
    planner = _planner(device, sm_count, smem_kb, power_budget, instr, model, family, family_file,
                       _space(block_m), _space(block_n), _space(block_k), _space(stages), _space(threads),
                       _space(split_k))
    problems = []

    def top_of(m, n, k, lda, ldb, ldc):
        problem = {"m": m, "n": n, "k": k, "dtype": dtype, "out_dtype": out_dtype, "a_layout": a_layout,
                   "b_layout": b_layout, "lda": lda, "ldb": ldb, "ldc": ldc}
        problems.append(problem)
        return [(bm, bn, bk, st, th, sk) for bm, bn, bk, st, th, _, sk in planner.top(problem, top_k)]

    order = union_of_tops(shapes, top_of)
    # The types as the library resolves them (out_dtype None: the input type's default).
    types = plan(**{key: problems[0][key] for key in ("m", "n", "k", "dtype", "out_dtype", "a_layout", "b_layout",
                                                      "lda", "ldb", "ldc")}, device=device, top_k=1).problem
    return [_config(key, types, _splits(split_k), enable_rasteration, with_dtypes) for key in order]


def _check_flags(enable_rasteration, with_dtypes):
    if not isinstance(enable_rasteration, bool):
        raise TypeError(f"enable_rasteration must be a bool, not {type(enable_rasteration).__name__}")
    if not isinstance(with_dtypes, bool):
        raise TypeError(f"with_dtypes must be a bool, not {type(with_dtypes).__name__}")


def _splits(split_k):
    """The space splits K (a factor above 1): the dicts carry split_k."""
    return split_k is not None and any(s > 1 for s in ([split_k] if isinstance(split_k, int) else split_k))


def _key(c):
    return (c.block_m, c.block_n, c.block_k, c.stages, c.threads, c.split_k)


def _config(key, problem, splits, enable_rasteration, with_dtypes):
    """One dict as `tileplan tile --emit tilelang` gives its fields (the types only with_dtypes)."""
    block_m, block_n, block_k, stages, threads, split_k = key
    config = {"block_M": block_m, "block_N": block_n, "block_K": block_k, "num_stages": stages, "threads": threads,
              "enable_rasteration": enable_rasteration}
    if splits:
        config["split_k"] = split_k
    if with_dtypes:
        config.update(in_dtype=_tilelang_type(problem.dtype), out_dtype=_tilelang_type(problem.out_dtype),
                      accum_dtype="float32")
    return config
