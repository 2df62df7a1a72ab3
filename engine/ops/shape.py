"""Shapes, views and indexing: reshape, transpose, expand, select, slice, index, masked_fill, where,
repeat, and the writes into a region (CopySlices).
"""
from __future__ import annotations

import math

import numpy as np

from engine import xp
from engine.ops.backward_ops import recorded, scatter_add_array, scatter_array
from engine.ops.linalg import mT
from engine.ops.record import PROMOTE, Names, broadcast_shapes, functions, names, op


def _mask_shape(arrays, attrs):
    """masked_fill's check and shape: the mask broadcast against self (PyTorch names the mask tensor a)."""
    return broadcast_shapes(attrs["mask"].shape, arrays[0].shape), 0


_select_backward = recorded("select_backward", scatter_array)


_slice_backward = recorded("slice_backward", scatter_array)


_unbind_backward = recorded("unbind_backward", scatter_array)


_index_backward = recorded("index_backward", scatter_add_array)


def _put(a, key, value):
    """A copy of `a` with `value` written at `key` (numpy's setitem, without touching `a`)."""
    out = a.copy()
    out[(Ellipsis,) + key] = value
    return out


def _copy_slices(a, b, index):
    """A copy of `a` with `b` written at the flat positions `index` (a region, laid out as `b` broadcasts)."""
    out = a.copy()
    out.reshape(-1)[index.reshape(-1)] = np.broadcast_to(b, index.shape).reshape(-1)
    return out


def _region_mask(index, shape):
    mask = np.zeros(math.prod(shape), dtype=bool)
    mask[index.reshape(-1)] = True
    return mask.reshape(shape)


def _take_flat(g, index, shape):
    """The elements of `g` (batch axes first, then `shape`) at the flat positions `index`."""
    batch = tuple(g.shape[: len(g.shape) - len(shape)])
    return g.reshape(batch + (-1,))[(Ellipsis, index)]


def _scatter_flat_array(g, shape, index):
    """Zeros of `shape` (batch axes of g first) with g added at the flat positions `index`."""
    batch = g.shape[: g.ndim - index.ndim]
    grad = np.zeros(batch + (math.prod(shape),), dtype=g.dtype)
    np.add.at(grad, (Ellipsis, index), g)
    return grad.reshape(batch + tuple(shape))


_as_strided_backward = recorded("as_strided_backward", _scatter_flat_array)


def _expand(a, shape):
    """`np.broadcast_to`, writable as PyTorch's expanded tensors are (fill_ writes through; elementwise
    in-place ops refuse them: `tensor._check_overlap`)."""
    out = np.broadcast_to(a, shape)
    if a.dtype != object and a.flags.writeable:
        out = np.lib.stride_tricks.as_strided(a, out.shape, out.strides)
    return out


def _put_zero(g, key):
    """`g` with zeros at `key` (numpy's setitem on a copy; a masked `where` for Tensors)."""
    if xp.is_tensor(g):
        mask = np.zeros(g.shape, dtype=bool)
        mask[(Ellipsis,) + key] = True
        return xp.where(mask, 0, g)
    return _put(g, key, 0)


# --- shapes and indexing ----------------------------------------------------------------------
_reshape_back = ("grad.reshape(self.sizes())", lambda g, out, a, **_: g.reshape(xp.batch_shape(g, out) + a.shape))
op("view", "ViewBackward0", ["self"], lambda a, shape: a.reshape(shape), {"self": _reshape_back}, view=True,
   names=names("view", function=False))
op("reshape_alias", "ReshapeAliasBackward0", ["self"], lambda a, shape: a.reshape(shape), {"self": _reshape_back},
   view=True,
   names=names("reshape"))
op("unsafe_view", "UnsafeViewBackward0", ["self"], lambda a, shape: a.reshape(shape), {"self": _reshape_back})
op("unsqueeze", "UnsqueezeBackward0", ["self"], lambda a, dim: np.expand_dims(a, dim), {"self": _reshape_back},
   view=True,
   names=names("unsqueeze"))
op("squeeze", "SqueezeBackward0", ["self"], lambda a: np.squeeze(a), {"self": _reshape_back}, view=True,
   names=names("squeeze"))
op("squeeze_dim", "SqueezeBackward1", ["self"], lambda a, dim: np.squeeze(a, dim) if a.ndim and a.shape[dim] == 1 else a,
   {"self": _reshape_back},
   view=True)
op("squeeze_matmul", "SqueezeBackward4", ["self"], lambda a, dim: np.squeeze(a, dim), {"self": _reshape_back})
op("expand", "ExpandBackward0", ["self"], _expand,
   {"self": ("at::sum_to(grad, self.sizes())", lambda g, out, a, shape: g)}, view=True,
   names=names("expand", function=False), shape=lambda arrays, attrs: (attrs["shape"], 0))
op("alias", "AliasBackward0", ["self"], lambda a: a, {"self": ("grad", lambda g, out, a: g)}, view=True)
op("clone", "CloneBackward0", ["self"], lambda a: a.copy(), {"self": ("grad", lambda g, out, a: g)},
   names=names("clone"))
op("to_copy", "ToCopyBackward0", ["self"], lambda a, dtype: a if xp.symbolic(a) else a.astype(dtype),
   {"self": ("grad.to(self.dtype)", lambda g, out, a, dtype: g if xp.symbolic(g) else xp.astype(g, a.dtype))})
op("t", "TBackward0", ["self"], lambda a: a.T,
   {"self": ("grad.t()", lambda g, out, a: g if np.ndim(a) < 2 else g.t() if xp.is_tensor(g) else mT(g))},
   view=True,
   names=names("t"))
op("transpose", "TransposeBackward0", ["self"], lambda a, dim0, dim1: np.swapaxes(a, dim0, dim1),
   {"self": ("grad.transpose(dim0, dim1)", lambda g, out, a, dim0, dim1: xp.swapaxes(g, dim0, dim1))}, view=True,
   names=names("transpose"))
op("permute", "PermuteBackward0", ["self"], lambda a, dims: np.transpose(a, dims),
   {"self": ("permute_backwards(grad, dims)",
             lambda g, out, a, dims: xp.moveaxis(g, [d - a.ndim for d in range(a.ndim)],
                                                 [d - a.ndim for d in dims]))}, view=True,
   names=names("permute"))
op("flip", "FlipBackward0", ["self"], lambda a, dims: np.flip(a, dims) if dims else a.copy(),
   {"self": ("grad.flip(dims)", lambda g, out, a, dims: xp.flip(g, dims) if dims else g)},
   names=names("flip"))
op("unbind", "UnbindBackward0", ["self"], lambda a, key: a[key],
   {"self": ("unbind_backward(grads, dim)", lambda g, out, a, key: _unbind_backward(g, shape=a.shape, key=key))},
   view=True)
# the pieces of split and chunk: slices along one dim, each recorded under the node name PyTorch gives the split
for _key, _name in (("split", "SplitBackward0"), ("split_with_sizes", "SplitWithSizesBackward0")):
    op(_key, _name, ["self"], lambda a, key: a[key],
       {"self": ("grads of the pieces, concatenated along dim",
                 lambda g, out, a, key: _slice_backward(g, shape=a.shape, key=key))}, view=True)
op("select", "SelectBackward0", ["self"], lambda a, key: a[key],
   {"self": ("select_backward(grad, self.sizes(), dim, index)",
             lambda g, out, a, key: _select_backward(g, shape=a.shape, key=key))},
   view=True)
op("slice", "SliceBackward0", ["self"], lambda a, key: a[key],
   {"self": ("slice_backward(grad, self.sizes(), dim, start, end, step)",
             lambda g, out, a, key: _slice_backward(g, shape=a.shape, key=key))}, view=True)
op("copy_slices", "CopySlices", ["self", "src"], _copy_slices,
   {"self": ("grad with zeros where src was written",
             lambda g, out, a, b, index: xp.where(_region_mask(index, np.shape(a)), 0, g)),
    "src": ("grad at the written elements", lambda g, out, a, b, index: _take_flat(g, index, np.shape(a)))})
op("as_strided", "AsStridedBackward0", ["self"], lambda a, index: np.reshape(a, -1)[index],
   {"self": ("as_strided_backward(grad, …): grad added at the viewed elements",
             lambda g, out, a, index: _as_strided_backward(g, shape=np.shape(a), index=index))})
op("as_strided_backward", "AsStridedBackwardBackward0", ["grad_output"], _scatter_flat_array,
   {"grad_output": ("grad at the viewed elements", lambda gg, y, g, shape, index: _take_flat(gg, index, shape))})
op("copy", "CopyBackwards", ["self", "src"], lambda a, b: np.broadcast_to(b, np.shape(a)).astype(a.dtype),
   {"self": ("zeros_like(grad)", lambda g, out, a, b: xp.zeros(np.shape(g), g)),
    "src": ("grad.to(src.dtype)", lambda g, out, a, b: g)}, dtype=lambda arrays, attrs: arrays[0].dtype,
   names=Names(inplace=("copy_",)))
op("index_put", "IndexPutBackward0", ["self", "values"], lambda a, b, key: _put(a, key, b),
   {"self": ("grad.index_put(indices, zeros_like(values))", lambda g, out, a, b, key: _put_zero(g, key)),
    "values": ("grad[indices]", lambda g, out, a, b, key: g[(Ellipsis,) + key])})
op("index", "IndexBackward0", ["self"], lambda a, key: a[key],
   {"self": ("index_put(zeros_like(self), indices, grad, accumulate=True)",
             lambda g, out, a, key: _index_backward(g, shape=a.shape, key=key))}, saves=["indices"])
op("masked_fill", "MaskedFillBackward0", ["self"], lambda a, mask, value: np.where(mask, value, a),
   {"self": ("grad.masked_fill(mask, 0)", lambda g, out, a, mask, value: xp.where(mask, 0, g))}, saves=["mask"],
   check=_mask_shape, shape=_mask_shape, dtype=lambda arrays, attrs: arrays[0].dtype,
   names=names("masked_fill", inplace=True))
op("masked_fill_tensor", "MaskedFillBackward1", ["self", "value"], lambda a, value, mask: np.where(mask, value, a),
   {"self": ("grad.masked_fill(mask, 0)", lambda g, out, a, value, mask: xp.where(mask, 0, g)),
    "value": ("where(mask, grad, 0).sum()",
              lambda g, out, a, value, mask: xp.sum(xp.where(mask, g, 0), axis=tuple(range(-a.ndim, 0))))},
   saves={"self": ["mask"], "value": ["mask"]}, check=_mask_shape, shape=_mask_shape, dtype=lambda arrays, attrs: arrays[0].dtype)
op("where", "WhereBackward0", ["self", "other"], lambda a, b, condition: np.where(condition, a, b),
   {"self": ("where(condition, grad, 0)", lambda g, out, a, b, condition: xp.select(condition, g)),
    "other": ("where(condition, 0, grad)", lambda g, out, a, b, condition: xp.select(condition, 0, g))},
   saves={"self": ["condition"], "other": ["condition"]}, dtype=PROMOTE,
   names=functions("where"),
   shape=lambda arrays, attrs: (np.broadcast_shapes(attrs["condition"].shape, *map(np.shape, arrays)), 0))


def _repeat_shape(arrays, attrs):
    repeats = attrs["repeats"]
    padded = (1,) * (len(repeats) - np.ndim(arrays[0])) + np.shape(arrays[0])
    return tuple(r * n for r, n in zip(repeats, padded)), 0


def _repeat_rule(g, out, a, repeats):
    """Sum the copies: grad viewed as (r0, s0, r1, s1, …), summed over the r's."""
    padded = (1,) * (len(repeats) - np.ndim(a)) + tuple(np.shape(a))
    batch = tuple(g.shape[: len(g.shape) - len(repeats)])
    split = g.reshape(batch + tuple(x for r, n in zip(repeats, padded) for x in (r, n)))
    return xp.sum(split, axis=tuple(len(batch) + 2 * i for i in range(len(repeats))))


op("repeat", "RepeatBackward0", ["self"], lambda a, repeats: np.tile(a, repeats),
   {"self": ("grad summed over the copies", _repeat_rule)},
   names=names("repeat", function=False), shape=_repeat_shape)
