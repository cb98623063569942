"""tileplan inside TileLang's autotuner.

    @tilelang.autotune(configs=tileplan.tilelang.configs(M, N, K, top_k=10))
    @tilelang.jit(out_idx=[-1])
    def matmul(M, N, K, block_M=128, block_N=128, block_K=32, num_stages=3, threads=128,
               enable_rasteration=True): ...
"""

from . import plan

__all__ = ["configs"]


def _tilelang_type(name):
    # tf32 operands are float32 arrays in TileLang; the tensor cores round them.
    return "float32" if name == "tfloat32" else name


def configs(m, n, k, *, dtype="float16", out_dtype=None, a_layout="row", b_layout="row", lda=0, ldb=0, ldc=0,
            top_k=15, device="h200", sm_count=None, smem_kb=None, block_m=None, block_n=None, block_k=None,
            stages=None, threads=None, split_k=None, model="calibrated", family=None, family_file=None,
            instr="auto", enable_rasteration=True, with_dtypes=False):
    """The best top_k configurations as the dicts @tilelang.autotune(configs=...) takes, best first.

    Arguments as tileplan.plan. instr auto resolves each tile as TileLang's T.gemm picks its
    instruction (GemmNode::GetGemmInst in tile-ai/tilelang src/op/gemm.cc): wgmma on sm_90 for a
    block of at least 64 rows and whole warpgroups, mma otherwise, the rule tl.dot follows. Keys: block_M, block_N, block_K, num_stages, threads and
    enable_rasteration (the model ranks tiles in a grouped, rasterized order: True); with_dtypes
    adds in_dtype, out_dtype and accum_dtype in TileLang's names, as `tileplan tile --emit tilelang`;
    split_k (factors above 1) adds the key split_k, for a kernel that splits K.
    """
    if not isinstance(enable_rasteration, bool):
        raise TypeError(f"enable_rasteration must be a bool, not {type(enable_rasteration).__name__}")
    if not isinstance(with_dtypes, bool):
        raise TypeError(f"with_dtypes must be a bool, not {type(with_dtypes).__name__}")
    p = plan(m, n, k, dtype=dtype, out_dtype=out_dtype, a_layout=a_layout, b_layout=b_layout, lda=lda, ldb=ldb,
             ldc=ldc, device=device, sm_count=sm_count, smem_kb=smem_kb, block_m=block_m, block_n=block_n,
             block_k=block_k, stages=stages, threads=threads, split_k=split_k, top_k=top_k, model=model,
             family=family, family_file=family_file, instr=instr)
    splits = split_k is not None and any(s > 1 for s in ([split_k] if isinstance(split_k, int) else split_k))
    out = []
    for c in p:
        config = {"block_M": c.block_m, "block_N": c.block_n, "block_K": c.block_k, "num_stages": c.stages,
                  "threads": c.threads, "enable_rasteration": enable_rasteration}
        if splits:
            config["split_k"] = c.split_k
        if with_dtypes:
            config.update(in_dtype=_tilelang_type(p.problem.dtype), out_dtype=_tilelang_type(p.problem.out_dtype),
                          accum_dtype="float32")
        out.append(config)
    return out
