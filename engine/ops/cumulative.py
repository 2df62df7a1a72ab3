"""Cumulative sums and products along a dim.
"""
from __future__ import annotations

import numpy as np

from engine import xp
from engine.ops.record import INT64, names, op


def _cumulative(fn):
    """np.cumsum/np.cumprod, a 0-dim tensor kept 0-dim (its own cumulative sum)."""
    return lambda a, dim: fn(a, axis=dim) if np.ndim(a) else a.copy()


def _reverse_cumsum(g, dim):
    return xp.flip(xp.cumsum(xp.flip(g, (dim,)), dim), (dim,))


def _cumprod_rule(g, out, a, dim):
    """sum over k >= i of g_k * prod_{j <= k, j != i} a_j: reverse_cumsum(g * out) / a without zeros; with
    zeros, that sum term by term (n cumulative products of a with a_i set to 1)."""
    if np.ndim(a) == 0:
        return g
    if not np.any(xp.numeric(a) == 0):
        return _reverse_cumsum(g * out, dim) / a
    shape = tuple(np.shape(a))
    along = np.arange(shape[dim]).reshape((-1,) + (1,) * (-dim - 1))  # positions along dim, broadcastable
    parts = []
    for i in range(shape[dim]):
        others = xp.where(np.broadcast_to(along == i, shape), 1, a)
        later = np.broadcast_to(along >= i, shape).astype(np.float64 if xp.symbolic(a) else xp.numeric(a).dtype)
        parts.append(xp.sum(g * xp.cumprod(others, dim) * later, axis=dim, keepdims=True))
    return xp.concatenate(parts, dim)


def _cumulative_dtype(arrays, attrs):
    return arrays[0].dtype if arrays[0].dtype.kind == "f" else INT64


op("cumsum", "CumsumBackward0", ["self"], _cumulative(np.cumsum),
   {"self": ("grad.flip(dim).cumsum(dim).flip(dim)",
             lambda g, out, a, dim: _reverse_cumsum(g, dim) if np.ndim(a) else g)},
   dtype=_cumulative_dtype,
   names=names("cumsum"))
op("cumprod", "CumprodBackward0", ["self"], _cumulative(np.cumprod),
   {"self": ("cumprod_backward(grad, self, dim, result)", _cumprod_rule)}, saves=["self", "result"],
   dtype=_cumulative_dtype,
   names=names("cumprod"))
