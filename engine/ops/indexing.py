"""gather, scatter, scatter_add, index_add and embedding: reading and writing along a dim at an index.
"""
from __future__ import annotations

import numpy as np

from engine import xp
from engine.ops.backward_ops import recorded
from engine.ops.record import names, op


# --- gather, scatter, cumulative sums and products, repeat ----------------------------------------------
def _grids(index, dim):
    """A numpy key reading along `dim` at `index` (other dims by position): gather's and scatter's, after
    any leading batch axes (dim counts from the end)."""
    grids = list(np.ogrid[tuple(slice(n) for n in index.shape)])
    grids[dim] = index
    return (Ellipsis,) + tuple(grids)


def _scatter_add_along(g, shape, dim, index):
    """Zeros of `shape` (batch axes of g first) with g added along `dim` at `index` (gather's backward)."""
    grad = np.zeros(g.shape[: g.ndim - index.ndim] + tuple(shape), dtype=g.dtype)
    np.add.at(grad, _grids(index, dim), g)
    return grad


_gather_backward = recorded("gather_backward", _scatter_add_along)


def _scattered(shape, dim, index):
    mask = np.zeros(shape, dtype=bool)
    mask[_grids(index, dim)] = True
    return mask


def _src_region(index):
    return tuple(slice(0, n) for n in index.shape)


def _scatter_forward(a, src, dim, index, add=False):
    out = a.copy()
    values = np.broadcast_to(src, index.shape) if np.ndim(src) == 0 else src[_src_region(index)]
    if add:
        np.add.at(out, _grids(index, dim), values)
    else:
        out[_grids(index, dim)] = values
    return out


def _src_rule(g, out, a, src, dim, index, name="ScatterBackward0"):
    """grad.gather(dim, index): index-shaped, so PyTorch refuses it for a src larger than index."""
    if tuple(np.shape(src)) != tuple(index.shape):
        raise RuntimeError(f"Function {name} returned an invalid gradient at index 1 - got {list(index.shape)} but "
                           f"expected shape compatible with {list(np.shape(src))}")
    return g[_grids(index, dim)]


op("gather_backward", "ScatterAddBackward0", ["grad_output"], _scatter_add_along,
   {"grad_output": ("grad.gather(dim, index)", lambda gg, y, g, shape, dim, index: gg[_grids(index, dim)])})
op("gather", "GatherBackward0", ["self"], lambda a, dim, index: a[_grids(index, dim)],
   {"self": ("gather_backward(grad, self, dim, index): zeros with grad added at index",
             lambda g, out, a, dim, index: _gather_backward(g, shape=np.shape(a), dim=dim, index=index))},
   saves=["self", "index"],
   names=names("gather"))
op("scatter", "ScatterBackward0", ["self", "src"], _scatter_forward,
   {"self": ("grad.scatter(dim, index, 0)", lambda g, out, a, src, dim, index:
             xp.where(_scattered(np.shape(a), dim, index), 0, g)),
    "src": ("grad.gather(dim, index)", _src_rule)}, saves={"self": ["index"], "src": ["index"]},
   dtype=lambda arrays, attrs: arrays[0].dtype,
   names=names("scatter", inplace=True))
op("scatter_value", "ScatterBackward1", ["self"], lambda a, dim, index, value: _scatter_forward(a, value, dim, index),
   {"self": ("grad.scatter(dim, index, 0)", lambda g, out, a, dim, index, value:
             xp.where(_scattered(np.shape(a), dim, index), 0, g))}, saves=["index"],
   dtype=lambda arrays, attrs: arrays[0].dtype)
def _along(dim, index):
    """A numpy key selecting `index` along `dim` (counted from the end: leading batch axes pass through)."""
    return (Ellipsis, index) + (slice(None),) * (-dim - 1)


def _index_select_rows(g, shape, dim, index):
    """Zeros of the input's `shape` (batch axes of g first) with g added along `dim` at `index` (a row picked
    twice gets both): PyTorch's `zeros.index_add(dim, index, grad)`, hence its node's name."""
    grad = np.zeros(np.shape(g)[: np.ndim(g) - len(shape)] + tuple(shape), dtype=np.asarray(g).dtype)
    np.add.at(grad, _along(dim, index), g)
    return grad


_index_select_backward = recorded("index_select_backward", _index_select_rows)
op("index_select_backward", "IndexAddBackward0", ["grad"], _index_select_rows,
   {"grad": ("grad.index_select(dim, index)", lambda gg, y, g, shape, dim, index: gg[_along(dim, index)])})
op("index_select", "IndexSelectBackward0", ["self"], lambda a, dim, index: a[_along(dim, index)],
   {"self": ("index_select_backward(grad, self.sizes(), dim, index): zeros with grad added at index",
             lambda g, out, a, dim, index: _index_select_backward(g, shape=np.shape(a), dim=dim, index=index))},
   saves=["index"], dtype=lambda arrays, attrs: arrays[0].dtype, names=names("index_select"))


def _embedding_rows(g, weight_shape, indices, padding_idx):
    """embedding_dense_backward: zeros of the weight's shape (batch axes of g first) with each row of g added at
    its index, so a row looked up twice gets the sum; the padding row gets nothing."""
    grad = np.zeros(np.shape(g)[: np.ndim(g) - indices.ndim - 1] + tuple(weight_shape), dtype=np.asarray(g).dtype)
    np.add.at(grad, (Ellipsis, indices, slice(None)), g)
    if padding_idx is not None:
        grad[..., padding_idx, :] = 0
    return grad


def _embedding_lookup(g, indices, padding_idx):
    """Rows of g at `indices` (batch axes first), 0 where the index is the padding row."""
    rows = g[(Ellipsis, indices, slice(None))]
    return rows if padding_idx is None else xp.where((indices == padding_idx)[..., None], 0, rows)


_embedding_backward = recorded("embedding_dense_backward", _embedding_rows)
op("embedding_dense_backward", "EmbeddingDenseBackwardBackward0", ["grad_output"], _embedding_rows,
   {"grad_output": ("embedding(grad, indices), 0 at padding_idx", lambda gg, y, g, weight_shape, indices, padding_idx:
                    _embedding_lookup(gg, indices, padding_idx))})
op("embedding", "EmbeddingBackward0", ["weight"], lambda w, indices, padding_idx: w[indices],
   {"weight": ("embedding_backward(grad, indices, num_weights, padding_idx): rows of grad added at indices",
               lambda g, out, w, indices, padding_idx: _embedding_backward(g, weight_shape=np.shape(w), indices=indices,
                                                                           padding_idx=padding_idx))},
   saves=["indices"], dtype=lambda arrays, attrs: arrays[0].dtype)


def _index_add_forward(a, source, dim, index, alpha):
    out = a.copy()
    np.add.at(out, _along(dim, index), source if alpha == 1 else source * alpha)  # repeated indices add up
    return out


op("index_add", "IndexAddBackward0", ["self", "source"], _index_add_forward,
   {"self": ("grad", lambda g, out, a, source, dim, index, alpha: g),
    "source": ("grad.index_select(dim, index) * alpha",
               lambda g, out, a, source, dim, index, alpha: g[_along(dim, index)] * alpha if alpha != 1
               else g[_along(dim, index)])},
   saves={"source": ["index"]}, dtype=lambda arrays, attrs: arrays[0].dtype, names=names("index_add", inplace=True))
op("scatter_add", "ScatterAddBackward0", ["self", "src"],
   lambda a, src, dim, index: _scatter_forward(a, src, dim, index, add=True),
   {"self": ("grad", lambda g, out, a, src, dim, index: g),
    "src": ("grad.gather(dim, index)",
            lambda g, out, a, src, dim, index: _src_rule(g, out, a, src, dim, index, "ScatterAddBackward0"))},
   saves={"src": ["index"]}, dtype=lambda arrays, attrs: arrays[0].dtype,
   names=names("scatter_add", inplace=True))
