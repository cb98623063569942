"""The union of many shapes' shortlists, as `tileplan tile --shapes FILE --emit` lists it.

Shared by tileplan.triton.configs_for_shapes and tileplan.tilelang.configs_for_shapes.
"""

import warnings

from ._tileplan import Error

__all__ = ["union_of_tops"]


def _error(message):
    e = Error(message)
    e.kind, e.param = "invalid_argument", "shapes"
    return e


def _read(shape, index):
    """(m, n, k, lda, ldb, ldc) of one item: an (m, n, k) sequence or a mapping with m, n, k and
    optionally lda, ldb, ldc (0: packed)."""
    if isinstance(shape, dict):
        if set(shape) - {"m", "n", "k", "lda", "ldb", "ldc"} or not {"m", "n", "k"} <= set(shape):
            raise _error(f"shapes: item {index} must have m, n, k (and optionally lda, ldb, ldc), got {sorted(shape)}")
        return shape["m"], shape["n"], shape["k"], shape.get("lda", 0), shape.get("ldb", 0), shape.get("ldc", 0)
    try:
        m, n, k = shape
    except (TypeError, ValueError):
        raise _error(f"shapes: item {index} must be (m, n, k) or a mapping, got {shape!r}") from None
    return m, n, k, 0, 0, 0


def union_of_tops(shapes, top_of):
    """Every configuration any shape ranks, once, in the batch emitter's order.

    top_of(m, n, k, lda, ldb, ldc) gives a shape's ranked configurations as hashable keys, best
    first. The order: by the shapes a key is the first pick for, then by all the shapes that rank
    it, then by first appearance (render::BatchEmit's). A shape with none is left out with one
    warning naming it; no shape with any raises tileplan.Error, as do an empty or malformed list.
    """
    try:
        items = iter(shapes)
    except TypeError:
        raise TypeError(f"shapes must be an iterable of (m, n, k) or mappings, not {type(shapes).__name__}") from None
    counts = {}  # key -> [first picks, shapes ranking it], in order of first appearance
    unplanned = []
    total = 0
    for index, shape in enumerate(items):
        total += 1
        m, n, k, lda, ldb, ldc = _read(shape, index)
        ranked = top_of(m, n, k, lda, ldb, ldc)
        if not ranked:
            unplanned.append(f"{m}x{n}x{k}")
        for rank, key in enumerate(ranked):
            entry = counts.setdefault(key, [0, 0])
            entry[0] += rank == 0
            entry[1] += 1
    if total == 0:
        raise _error("shapes: empty; give at least one (m, n, k)")
    if not counts:
        raise _error(f"no configuration is feasible for any of the {total} shape(s)")
    if unplanned:
        warnings.warn(f"tileplan: no feasible configuration for {len(unplanned)} of {total} shape(s) "
                      f"({', '.join(unplanned[:5])}{', ...' if len(unplanned) > 5 else ''}): left out of the list",
                      stacklevel=3)
    return sorted(counts, key=lambda key: (-counts[key][0], -counts[key][1]))  # stable: first appearance
