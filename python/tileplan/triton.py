"""tileplan inside Triton's autotuner.

    @triton.autotune(configs=my_configs, key=["M", "N", "K"],
                     prune_configs_by=tileplan.triton.prune(top_k=3))
    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, ..., BLOCK_M: tl.constexpr, ...):

configs()     the shortlist as triton.Config objects (what `tileplan tile --emit triton` prints)
configs_for_shapes()  one list for a kernel's known shapes (what `tile --shapes FILE --emit triton` prints)
prune()       prune_configs_by for @triton.autotune: your configs, ranked by predicted time, top_k kept
heuristics()  values for @triton.heuristics: one configuration per problem, no autotuning

The problem is read from the kernel's arguments: M, N, K by name (or from the
tensors' shapes); A, B and C are the first three tensors (or the ones named by
a, b, c): their dtypes give the types, their strides the layouts and leading
dimensions. This module imports without Triton; only configs() needs it.
"""

import functools
import operator
import warnings

from . import _tileplan
from ._shapes import union_of_tops
from ._tileplan import Error

__all__ = ["configs", "configs_for_shapes", "prune", "heuristics", "problem_from_args"]

# torch dtype names -> tileplan input types (an fp32 dot is tf32 in Triton by default).
_INPUT_TYPES = {"float16": "float16", "bfloat16": "bfloat16", "float8_e4m3fn": "float8_e4m3",
                "float8_e5m2": "float8_e5m2", "float32": "tfloat32",
                "float8_e4m3": "float8_e4m3", "tfloat32": "tfloat32"}
_OUTPUT_TYPES = {"float16": "float16", "bfloat16": "bfloat16", "float32": "float32"}


class _Unreadable(Exception):
    """The kernel's arguments do not say what problem it solves."""


def _error(kind, param, message):
    e = Error(message)
    e.kind, e.param = kind, param
    return e


def _space(value):
    """A search-space argument as a hashable cache key (None, an int, or a tuple)."""
    if value is None or isinstance(value, (int, str, bytes)):
        return value
    try:
        return tuple(value)
    except TypeError:
        return value  # the library's TypeError names it


@functools.lru_cache(maxsize=64)
def _planner(device, sm_count, smem_kb, power_budget, instr, model, family, family_file, block_m, block_n, block_k,
             stages, threads, split_k=None):
    return _tileplan.Planner(locals())


@functools.lru_cache(maxsize=64)
def _ranker(device, sm_count, smem_kb, power_budget, instr, model, family, family_file):
    return _tileplan.Ranker(locals())


def _padding_note(planner, problem):
    """A one-line note where padding the problem is predicted to pay (planner.padding), else None."""
    option = planner.padding(problem)
    if option is None or option[1] < _tileplan.PADDING_PAYS:
        return None
    summary, speedup, extra, unpadded, padded = option
    return (f"{problem['m']}x{problem['n']}x{problem['k']} {problem['dtype']}: padding {summary} (A and B "
            f"zero-filled, C's added part dropped; {extra:.2%} more work) is predicted {speedup:.2f}x faster "
            f"({padded:.1f} us against {unpadded:.1f} us; `tileplan tile` lists the options)")


def _check_top_k(top_k):
    if isinstance(top_k, bool) or not isinstance(top_k, int):
        raise TypeError(f"top_k must be an int, not {type(top_k).__name__}")
    if top_k < 0:
        raise _error("invalid_argument", "top_k", f"top_k {top_k} must be at least 0 (0 keeps every feasible one)")


def _is_tensor(value):
    return hasattr(value, "dtype") and hasattr(value, "shape") and callable(getattr(value, "stride", None))


def _type_name(dtype):
    name = str(dtype)
    return name[len("torch."):] if name.startswith("torch.") else name


def _shape_and_strides(tensor, name):
    """((rows, cols), (stride 0, stride 1)) of a 2-D operand."""
    try:
        rows, cols = (operator.index(s) for s in tensor.shape)
        s0, s1 = (operator.index(s) for s in tensor.stride())
    except (TypeError, ValueError, AttributeError):
        raise _Unreadable(f"{name} is not a 2-D tensor with integer shape and strides") from None
    return (rows, cols), (s0, s1)


def _layout(tensor, name):
    """(layout, leading dimension) of a 2-D operand from its strides; 0 for a packed or degenerate one."""
    (rows, cols), (s0, s1) = _shape_and_strides(tensor, name)
    if s1 == 1:
        return "row", s0 if s0 >= cols else 0
    if s0 == 1:
        return "col", s1 if s1 >= rows else 0
    raise _Unreadable(f"{name} is neither row- nor column-contiguous (strides {s0}, {s1})")


def _size(args, key, tensor, name, dim, what):
    if key in args:
        value = args[key]
        if isinstance(value, bool):
            raise _Unreadable(f"argument '{key}' ({what}) is a bool")
        try:
            return operator.index(value)
        except TypeError:
            raise _Unreadable(f"argument '{key}' ({what}) is not an int but {type(value).__name__}") from None
    if tensor is None:
        raise _Unreadable(f"no argument '{key}' and no tensor to read {what} from")
    return _shape_and_strides(tensor, name)[0][dim]


def problem_from_args(args, m="M", n="N", k="K", a=None, b=None, c=None):
    """The GEMM a kernel's arguments describe, as tileplan.plan's problem keywords.

    args: argument name -> value (Triton's nargs). m, n, k: the names of the size arguments (a size
    missing from args is read from A's or B's shape). a, b, c: the names of the operand tensors
    (None: the first, second and third tensor among the arguments). Without tensors: packed
    float16. Raises tileplan.Error when the arguments do not say.
    """
    try:
        return _read_problem(args, m, n, k, a, b, c)
    except _Unreadable as e:
        raise _error("invalid_argument", "args", str(e)) from None


def _read_problem(args, m, n, k, a, b, c):
    if not isinstance(args, dict):
        raise _Unreadable(f"the arguments are a {type(args).__name__}, not a dict of name to value")
    tensors = [v for v in args.values() if _is_tensor(v)]
    operands = []
    for i, name in enumerate((a, b, c)):
        if name is None:
            operands.append(tensors[i] if i < len(tensors) else None)
        elif name in args and _is_tensor(args[name]):
            operands.append(args[name])
        else:
            raise _Unreadable(f"argument '{name}' is not a tensor")
    ta, tb, tc = operands
    problem = {"m": _size(args, m, ta, "A", 0, "M"), "n": _size(args, n, tb, "B", 1, "N"),
               "k": _size(args, k, ta, "A", 1, "K"),
               "dtype": "float16", "out_dtype": None, "a_layout": "row", "b_layout": "row",
               "lda": 0, "ldb": 0, "ldc": 0}
    if ta is not None:
        name = _type_name(ta.dtype)
        if name not in _INPUT_TYPES:
            raise _Unreadable(f"A's dtype {name} is not a tileplan input type "
                              "(float16, bfloat16, float8_e4m3fn, float8_e5m2, float32 as tf32)")
        problem["dtype"] = _INPUT_TYPES[name]
        problem["a_layout"], problem["lda"] = _layout(ta, "A")
    if tb is not None:
        problem["b_layout"], problem["ldb"] = _layout(tb, "B")
    if tc is not None:
        problem["out_dtype"] = _OUTPUT_TYPES.get(_type_name(tc.dtype))
        layout, ldc = _layout(tc, "C")
        if layout != "row":
            raise _Unreadable("C is column-contiguous: tileplan models a row-major C")
        problem["ldc"] = ldc
    return problem


def _index(value):
    if isinstance(value, bool):
        raise TypeError("a bool")
    return operator.index(value)


class _Pruner:
    """early_config_prune for @triton.autotune: the user's configs ranked for the launch's problem."""

    def __init__(self, ranker, top_k, names, keys, split_k_key, padder):
        self._ranker = ranker
        self._padder = padder  # a planner of the default space: padding advice
        self._top_k = top_k
        self._names = names  # m, n, k, a, b, c
        self._keys = keys    # block_m_key, block_n_key, block_k_key
        self._split_k_key = split_k_key
        self._warp = ranker.warp_size
        self._warned = set()

    def _warn_once(self, what, message):
        if what not in self._warned:
            self._warned.add(what)
            warnings.warn(f"tileplan.triton.prune: {message}", stacklevel=3)

    def _map(self, config):
        """(block_m, block_n, block_k, stages, threads, split_k), or None when the config does not say.

        split_k is kwargs[split_k_key] when the config has that key, else 1."""
        try:
            kwargs = config.kwargs
            km, kn, kk = self._keys
            split = _index(kwargs[self._split_k_key]) if self._split_k_key in kwargs else 1
            return (_index(kwargs[km]), _index(kwargs[kn]), _index(kwargs[kk]), _index(config.num_stages),
                    _index(config.num_warps) * self._warp, split)
        except (AttributeError, KeyError, TypeError):
            return None

    def __call__(self, configs, nargs, **kwargs):
        configs = list(configs)
        if not configs:
            return configs
        try:
            try:
                args = dict(nargs)
            except (TypeError, ValueError):
                raise _Unreadable(f"the arguments are a {type(nargs).__name__}, not a dict of name to value") from None
            for key, value in kwargs.items():
                args.setdefault(key, value)
            problem = _read_problem(args, *self._names)
            ranked, others, unmapped = self._ranker.rank(problem, [self._map(c) for c in configs])
        except (_Unreadable, Error) as e:
            self._warn_once("problem", f"{e}; every config kept, unranked")
            return configs
        if "padding" not in self._warned:
            note = _padding_note(self._padder, problem)
            if note:
                self._warn_once("padding", note + "; shown once")
        kept = ranked if self._top_k == 0 else ranked[:self._top_k]
        out = [configs[i] for i in kept]
        if unmapped:
            self._warn_once("unmapped", f"{len(unmapped)} of {len(configs)} configs have no integer "
                            f"{'/'.join(self._keys)}, num_stages and num_warps within tileplan's limits; "
                            "they are kept after the ranked ones")
            out += [configs[i] for i in unmapped]
        if not out:
            self._warn_once("infeasible", f"no config is feasible for {problem['m']}x{problem['n']}x{problem['k']} "
                            f"{problem['dtype']} (C1-C4, or block_K > K); the first ones kept as given")
            out = [configs[i] for i in (others if self._top_k == 0 else others[:self._top_k])]
        return out


def prune(top_k=3, m="M", n="N", k="K", *, a=None, b=None, c=None, block_m_key="BLOCK_M", block_n_key="BLOCK_N",
          block_k_key="BLOCK_K", split_k_key="SPLIT_K", device="h200", sm_count=None, smem_kb=None,
          power_budget=None, model="calibrated", family=None, family_file=None, instr="auto"):
    """prune_configs_by for @triton.autotune: keeps your top_k configs by predicted time.

    On each new autotuning key, the problem is read from the kernel's arguments (see
    problem_from_args; m, n, k, a, b, c name them) and each config's kwargs[block_*_key],
    num_stages, num_warps (threads = num_warps * 32) and kwargs[split_k_key] if present (the
    split factor of a split-K kernel; absent: 1) become a tileplan configuration, ranked
    by the library's rank_configs. Returned: the top_k feasible ones best first (top_k 0: all),
    then the configs it could not map (one warning); never an empty list. Arguments it cannot
    read (another dtype, a strided C) leave the configs as given, with one warning. The first
    problem whose padding (M, N, K or a leading dimension rounded up to a multiple of 16) is
    predicted to pay under the default search space gets one warning that says by how much.
    device, model, family, family_file, instr, sm_count, smem_kb, power_budget: as tileplan.plan; a bad one
    raises tileplan.Error here, not in the autotuner.
    """
    _check_top_k(top_k)
    ranker = _ranker(device, sm_count, smem_kb, power_budget, instr, model, family, family_file)
    padder = _planner(device, sm_count, smem_kb, power_budget, instr, model, family, family_file, None, None, None,
                      None, None)
    return {"early_config_prune": _Pruner(ranker, top_k, (m, n, k, a, b, c), (block_m_key, block_n_key, block_k_key),
                                          split_k_key, padder)}


def _config(triton, planner, keys, bm, bn, bk, stages, threads, split_k):
    """One configuration as `tileplan tile --emit triton` prints it: GROUP_M unless its key is None,
    SPLIT_K only where the planner's space splits."""
    block_m_key, block_n_key, block_k_key, group_m_key, split_k_key = keys
    kwargs = {block_m_key: bm, block_n_key: bn, block_k_key: bk}
    if group_m_key is not None:
        kwargs[group_m_key] = planner.group_m
    if planner.splits:
        kwargs[split_k_key] = split_k
    return triton.Config(kwargs, num_warps=threads // planner.warp_size, num_stages=stages)


def configs(m, n, k, *, dtype="float16", out_dtype=None, a_layout="row", b_layout="row", lda=0, ldb=0, ldc=0,
            top_k=15, device="h200", sm_count=None, smem_kb=None, power_budget=None, block_m=None, block_n=None,
            block_k=None, stages=None, threads=None, split_k=None, model="calibrated", family=None, family_file=None,
            instr="auto", block_m_key="BLOCK_M", block_n_key="BLOCK_N", block_k_key="BLOCK_K",
            group_m_key="GROUP_M", split_k_key="SPLIT_K"):
    """The best top_k configurations as triton.Config objects (needs Triton), best first.

    Arguments as tileplan.plan. Each Config has kwargs {block_m_key, block_n_key, block_k_key,
    group_m_key (the family's grouped order; None leaves it out), split_k_key (only when split_k
    holds a factor above 1)}, num_warps = threads / 32 and num_stages: the lines
    `tileplan tile --emit triton` prints.
    """
    try:
        import triton
    except ImportError as e:
        raise ImportError("tileplan.triton.configs returns triton.Config objects and needs Triton "
                          "(prune and heuristics do not)") from e
    planner = _planner(device, sm_count, smem_kb, power_budget, instr, model, family, family_file,
                       _space(block_m), _space(block_n), _space(block_k), _space(stages), _space(threads),
                       _space(split_k))
    problem = {"m": m, "n": n, "k": k, "dtype": dtype, "out_dtype": out_dtype, "a_layout": a_layout,
               "b_layout": b_layout, "lda": lda, "ldb": ldb, "ldc": ldc}
    keys = (block_m_key, block_n_key, block_k_key, group_m_key, split_k_key)
    return [_config(triton, planner, keys, bm, bn, bk, st, th, sk) for bm, bn, bk, st, th, _, sk in
            planner.top(problem, top_k)]


def configs_for_shapes(shapes, *, dtype="float16", out_dtype=None, a_layout="row", b_layout="row", top_k=3,
                       device="h200", sm_count=None, smem_kb=None, power_budget=None, block_m=None, block_n=None,
                       block_k=None, stages=None, threads=None, split_k=None, model="calibrated", family=None,
                       family_file=None, instr="auto", block_m_key="BLOCK_M", block_n_key="BLOCK_N",
                       block_k_key="BLOCK_K", group_m_key="GROUP_M", split_k_key="SPLIT_K"):
    """One list of triton.Config for a kernel's known shapes (needs Triton).

    Every configuration in the first top_k of any shape, once: the list `tileplan tile --shapes
    FILE --emit triton` prints for them, in its order (by the shapes a configuration is the first
    pick for, then by all the shapes that rank it, then by first appearance). Give it to
    @triton.autotune(configs=..., key=["M", "N", "K"]): each shape's own first pick is in it.
    shapes: (m, n, k) tuples, or mappings with "m", "n", "k" and optionally "lda", "ldb", "ldc";
    the types, layouts and search space are the kernel's, shared by all (arguments as configs()).
    A shape with no feasible configuration is left out with one warning naming it; none at all
    raises tileplan.Error.
    """
    try:
        import triton
    except ImportError as e:
        raise ImportError("tileplan.triton.configs_for_shapes returns triton.Config objects and needs Triton") from e
    _check_top_k(top_k)
    planner = _planner(device, sm_count, smem_kb, power_budget, instr, model, family, family_file,
                       _space(block_m), _space(block_n), _space(block_k), _space(stages), _space(threads),
                       _space(split_k))

    def top_of(m, n, k, lda, ldb, ldc):
        problem = {"m": m, "n": n, "k": k, "dtype": dtype, "out_dtype": out_dtype, "a_layout": a_layout,
                   "b_layout": b_layout, "lda": lda, "ldb": ldb, "ldc": ldc}
        return [(bm, bn, bk, st, th, sk) for bm, bn, bk, st, th, _, sk in planner.top(problem, top_k)]

    order = union_of_tops(shapes, top_of)
    keys = (block_m_key, block_n_key, block_k_key, group_m_key, split_k_key)
    return [_config(triton, planner, keys, *entry) for entry in order]


def heuristics(m="M", n="N", k="K", *, a=None, b=None, c=None, block_m_key="BLOCK_M", block_n_key="BLOCK_N",
               block_k_key="BLOCK_K", group_m_key="GROUP_M", split_k_key="SPLIT_K", num_warps=True,
               num_stages=True, device="h200", sm_count=None, smem_kb=None, power_budget=None, block_m=None,
               block_n=None, block_k=None, stages=None, threads=None, split_k=None, model="calibrated", family=None,
               family_file=None, instr="auto"):
    """values for @triton.heuristics: tileplan's first pick for each launch's problem, no autotuning.

    Returns {block_m_key, block_n_key, block_k_key, group_m_key (unless None), split_k_key (only
    when split_k holds a factor above 1), "num_warps", "num_stages" (unless False): lambda args: value}. The problem is read as prune reads it;
    one plan per distinct problem. A problem it cannot read or plan raises tileplan.Error. The
    first problem whose padding is predicted to pay gets one warning, as with prune.
    """
    planner = _planner(device, sm_count, smem_kb, power_budget, instr, model, family, family_file,
                       _space(block_m), _space(block_n), _space(block_k), _space(stages), _space(threads),
                       _space(split_k))
    names = (m, n, k, a, b, c)
    picks = {}
    warned = []

    def pick(args):
        problem = problem_from_args(args, *names)
        key = tuple(problem.values())
        best = picks.get(key)
        if best is None:
            top = planner.top(problem, 1)
            if not top:
                raise _error("invalid_argument", "args",
                             f"no configuration of the search space is feasible for {problem['m']}x{problem['n']}x"
                             f"{problem['k']} {problem['dtype']} (C1-C4, or block_K > K)")
            if len(picks) >= 4096:
                picks.clear()
            best = picks[key] = top[0]
            if not warned:
                note = _padding_note(planner, problem)
                if note:
                    warned.append(note)
                    warnings.warn(f"tileplan.triton.heuristics: {note}; shown once", stacklevel=2)
        return best

    values = {block_m_key: lambda args: pick(args)[0], block_n_key: lambda args: pick(args)[1],
              block_k_key: lambda args: pick(args)[2]}
    if group_m_key is not None:
        values[group_m_key] = lambda args: planner.group_m
    if planner.splits:
        values[split_k_key] = lambda args: pick(args)[6]
    if num_warps:
        values["num_warps"] = lambda args: pick(args)[4] // planner.warp_size
    if num_stages:
        values["num_stages"] = lambda args: pick(args)[3]
    return values
