"""tileplan: GEMM tile sizes and loop partitions for NVIDIA GPUs, from Python.

Each function is a `tileplan` command with --format json: the same arguments
(keywords named as the flags, with '_' for '-'), the same rules, the same
results (attributes named and valued as the JSON fields), and the same
messages: bad input raises tileplan.Error (a ValueError) or TypeError.

    >>> import tileplan
    >>> best = tileplan.plan(4096, 4096, 4096, top_k=3)[0]
    >>> best.block_m, best.block_n, best.block_k, best.stages, best.threads
    (128, 256, 64, 4, 256)

Autotuner hooks: tileplan.triton (configs, prune, heuristics) and
tileplan.tilelang (configs).
"""

from . import _tileplan
from ._records import Candidate, Device, LoopReport, Occupancy, Plan, Problem, Record, wrap as _wrap
from ._tileplan import SPLIT_FACTORS, Error, __version__

__all__ = ["Error", "SPLIT_FACTORS", "plan", "diagnose", "occupancy", "loop", "devices", "device", "families",
           "Plan", "Candidate", "Problem", "Device", "Occupancy", "LoopReport", "Record", "__version__"]


def plan(m, n, k, *, dtype="float16", out_dtype=None, a_layout="row", b_layout="row", lda=0, ldb=0, ldc=0,
         device="h200", sm_count=None, smem_kb=None, power_budget=None, block_m=None, block_n=None, block_k=None,
         stages=None, threads=None, split_k=None, top_k=15, model="calibrated", family=None, family_file=None,
         instr="auto"):
    """Rank the tile configurations of a search space for one GEMM: `tileplan tile --format json`.

    m, n, k: the GEMM C[m,n] = A[m,k] B[k,n].
    dtype: A's and B's type (float16, bfloat16, float8_e4m3, float8_e5m2, tfloat32); out_dtype: C's
    (float16, bfloat16, float32; None: the CLI's default for dtype). a_layout, b_layout: row or col;
    lda, ldb, ldc: leading dimensions in elements (0: packed).
    device: a preset (tileplan.devices()); sm_count, smem_kb: override it as --sm-count, --smem-kb;
    power_budget: watts the board's power cap holds a sustained GEMM to, as --power-budget (None:
    the preset's, 636 on h100-sxm; 0: no power term; above 0 only on a preset with energy fields).
    block_m, block_n, block_k, stages, threads, split_k: None for the default candidates (the
    calibrated model: its family's measured space; seed: the reference's), or an int or a sequence
    of ints replacing them (split_k: the split factors of K, default 1 alone; SPLIT_FACTORS, the
    factors the family's split kernel was measured with, is `--split-k auto`; a split needs the
    calibrated model and a family with a split-K model, as --split-k). Beyond the family's space a
    candidate's in_measured_space is False: its prediction extrapolates.
    top_k: candidates to return (0: every feasible one). model: calibrated or seed. family: a shipped
    kernel family by name (None: triton under the calibrated model); family_file: one from a file.
    instr: auto (each tile's, as Triton's tl.dot picks it), wgmma, mma or simt.

    Returns a Plan: a sequence of Candidate (best first) with the report's device, problem, model,
    family, mode, space_size, feasible and stages_inert (True where neither operand can use
    cp.async: one candidate per tile, the stage count changes nothing), and padding: under the
    calibrated model, for a problem whose M, N, K or leading dimensions are not multiples of 16
    and where rounding them up changes how an operand moves, unpadded_us (the first pick's
    predicted time) and options (fastest first: pad, the padded m, n, k, lda, ldb, ldc and
    vector_bytes_*, extra_work, predicted_us, speedup over unpadded_us, config); None otherwise.
    """
    return _wrap(_tileplan.plan(locals()), Plan)


def diagnose(m, n, k, *, dtype="float16", out_dtype=None, a_layout="row", b_layout="row", lda=0, ldb=0, ldc=0,
             device="h200", sm_count=None, smem_kb=None, power_budget=None, block_m=128, block_n=128, block_k=32,
             stages=3, threads=256, split_k=1, model="calibrated", family=None, family_file=None, instr="auto"):
    """One configuration's verdict: `tileplan tile --diagnose --format json`, its one candidate.

    Arguments as plan(), with one int per tile dimension. A configuration that breaks C1-C4 is not an
    error: the Candidate's failures name the constraints (feasible is False).
    """
    report = _tileplan.diagnose(locals())
    return _wrap(report["candidates"][0], Candidate)


def occupancy(threads, regs, *, smem=0, smem_static=0, carveout=None, device="h200", sm_count=None, smem_kb=None):
    """Blocks per SM as the hardware grants them: `tileplan occupancy --format json`.

    threads: threads per block; regs: registers per thread; smem, smem_static: dynamic and static
    shared memory per block in bytes; carveout: the preferred shared-memory carveout in percent
    (None: the driver's choice).
    """
    return _wrap(_tileplan.occupancy(locals()), Occupancy)


def loop(extents, *, threads=128, vector=8, dtype="float16", scope="global", buffer_shape=None, access=None,
         origin=None, replicate=False, points=False, device="h200"):
    """How a T.Parallel nest lands on threads, and its memory: `tileplan loop --format json`.

    extents: the loop extents, outermost first; vector: an int or "auto"; dtype: the buffer's element
    type; scope: global or shared; buffer_shape, access, origin: the buffer and how the nest indexes
    it (None: the nest's own box); replicate: a fragment buffer's replication; points: list every
    point at any size.
    """
    return _wrap(_tileplan.loop(locals()), LoopReport)


def devices():
    """The device presets: `tileplan devices --format json`, as Device records."""
    return [_wrap(d, Device) for d in _tileplan.devices()]


def device(name):
    """One device preset by name (tileplan.Error if there is none)."""
    return _wrap(_tileplan.device(locals()), Device)


def families(family=None, family_file=None):
    """The kernel families, each as its file's dict: `tileplan families --format json`."""
    return _tileplan.families(locals())
