"""Indexing: `x[key]` (basic keys as views, advanced keys as index, mixed as select then index, as PyTorch),
`x[key] = value`, gather, scatter, scatter_add, index_add."""
from __future__ import annotations

import re

import numpy as np

from engine import dtypes
from engine.dims import normalize_dim
from engine.methods.inplace import LEAF_VIEW_INPLACE
from engine.tensor import Tensor, _apply, _as_operand, _fill_value, _modes, _tensor_arg


def _viewable(array: np.ndarray, shape) -> bool:
    """Whether `array` can be seen in `shape` without copying (its strides allow it)."""
    try:
        np.reshape(array, shape, copy=False)
        return True
    except ValueError:
        return False


def _full_key(key, ndim: int) -> tuple:
    """A numpy key that names every dim (Ellipsis spelled out, trailing `:` added), so that a rule can
    prefix it with `...` for leading batch axes."""
    key = tuple(k._data if isinstance(k, Tensor) else k for k in (key if isinstance(key, tuple) else (key,)))
    used = sum(0 if k is None or k is Ellipsis else np.ndim(k) if np.asarray(k).dtype == bool else 1 for k in key)
    ellipses = [i for i, k in enumerate(key) if k is Ellipsis]  # (`in` would compare arrays elementwise)
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    fill = (slice(None),) * max(0, ndim - used)
    if ellipses:
        return key[: ellipses[0]] + fill + key[ellipses[0] + 1:]
    return key + fill


def _advanced_key(t: Tensor, key: tuple) -> tuple:
    """A numpy key for advanced indexing (lists, ranges, integer or bool tensors), checked with PyTorch's
    errors, naming every dim (so a rule can prefix it with `...` for leading batch axes)."""
    out = []
    for k in key:
        if isinstance(k, Tensor):
            k = k._data
        elif isinstance(k, range):
            k = np.arange(k.start, k.stop, k.step, dtype=np.int64)
        elif isinstance(k, list):
            k = np.asarray([x._data if isinstance(x, Tensor) else x for x in k])
            if k.size == 0:
                k = k.astype(np.int64)
        if isinstance(k, np.ndarray):
            if k.dtype.kind not in "iub":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            if k.dtype == np.bool_ and k.ndim:
                out.extend(np.nonzero(k))
                continue
        elif isinstance(k, float):
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                             "valid indices (got float)")
        out.append(k)
    np_key = _full_key(tuple(out), t._data.ndim)
    try:
        t._data[np_key]
    except IndexError as err:
        raise IndexError(re.sub(r"for axis \d+", "for dimension 0", str(err))) from None
    return np_key


def _index(t: Tensor, key) -> Tensor:
    """Indexing as PyTorch records it: a chain of select / slice / unsqueeze nodes, or one index node."""
    lone_slice = isinstance(key, slice)  # PyTorch records x[:] as a slice, but skips full slices in x[:, 1:]
    key = key if isinstance(key, tuple) else (key,)
    if t._data.ndim == 0 and any(isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in key):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                         "C++ to convert a 0-dim tensor to a number")
    # a 0-dim integer tensor indexes like an int (PyTorch records a select)
    key = tuple(int(k._data) if isinstance(k, Tensor) and k._data.ndim == 0 and k._data.dtype.kind in "iu" else k
                for k in key)
    if any(isinstance(k, _ADVANCED) for k in key):
        return _mixed_index(t, key)
    out = _basic_index(t, key, lone_slice)
    return _apply("alias", (t,)) if out is t else out


_ADVANCED = (list, range, np.ndarray, Tensor)


def _mixed_index(t: Tensor, key: tuple) -> Tensor:
    """PyTorch's order for a key with lists or tensors in it: the basic entries first (select, slice and
    unsqueeze nodes: `x[0, [1, 2]]` is SelectBackward0 then IndexBackward0), then one index op with the advanced
    entries on the dims that are left; so `x[0, :, [1, 2]]` has PyTorch's shape, not numpy's."""
    basic, placed = [], []  # the key with each advanced entry as full slices; (its first slice, entry, dims)
    for k in key:
        if isinstance(k, _ADVANCED):
            array = k._data if isinstance(k, Tensor) else None
            dims = array.ndim if array is not None and array.dtype == np.bool_ and array.ndim else 1
            placed.append((len(basic), k, dims))
            basic.extend([slice(None)] * dims)
        else:
            basic.append(k)
    if basic.count(Ellipsis) == 1:  # spelled out here, so that the entries' positions follow it
        at = basic.index(Ellipsis)
        fill = t._data.ndim - (len(basic) - 1 - basic.count(None))
        basic[at: at + 1] = [slice(None)] * fill
        placed = [(p if p < at else p + fill - 1, k, dims) for p, k, dims in placed]
    out = _basic_index(t, tuple(basic), False)
    # where each advanced entry's dims are in `out`: ints before it removed dims, Nones added some
    dim_of, dim = {}, 0
    for i, k in enumerate(basic):
        dim_of[i] = dim
        if k is None or isinstance(k, slice):
            dim += 1
    advanced = [slice(None)] * out._data.ndim
    for position, k, dims in reversed(placed):
        at = dim_of[position]
        advanced[at: at + dims] = [k]
    return _apply("index", (out,), key=_advanced_key(out, tuple(advanced)))


def _basic_index(t: Tensor, key: tuple, lone_slice: bool) -> Tensor:
    """Ints, slices, None and Ellipsis, as PyTorch records them: select, slice (not a full one, unless the key
    is one lone slice) and unsqueeze nodes, in order; `t` itself when the key changes nothing."""
    if key.count(Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if Ellipsis in key:
        at = key.index(Ellipsis)
        fill = t._data.ndim - (len(key) - 1 - key.count(None))
        key = key[:at] + (slice(None),) * fill + key[at + 1:]
    if len(key) - key.count(None) > t._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {t._data.ndim}")
    out, dim = t, 0
    for k in key:
        if k is None:
            out = out.unsqueeze(dim)
            dim += 1
        elif isinstance(k, slice):
            size = out._data.shape[dim]
            start, stop, step = k.indices(size)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            if lone_slice or (start, stop, step) != (0, size, 1):
                out = _apply("slice", (out,), key=(slice(None),) * dim + (slice(start, stop, step),)
                             + (slice(None),) * (out._data.ndim - dim - 1))
            dim += 1
        elif isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            size = out._data.shape[dim]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for dimension {dim} with size {size}")
            out = _apply("select", (out,), key=(slice(None),) * dim + (int(k) % size,)
                         + (slice(None),) * (out._data.ndim - dim - 1))
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                             f"are valid indices (got {type(k).__name__})")
    return out


class IndexingMethods:
    """Indexing and writes at an index. (attached to `Tensor` by `engine.registry`)"""

    def gather(self, dim, index):
        """`x.gather(dim, index)`: out[i][j] = x[i][index[i][j]] (for dim=1)."""
        d, index = self._index_arg("gather", dim, index, "input")
        return _apply("gather", (self,), dim=d, index=index)

    def scatter(self, dim, index, src=None, *, value=None, reduce=None):
        """`x.scatter(dim, index, src)` (or a number `value`): a copy of x with src written along dim at index."""
        if reduce is not None:
            raise NotImplementedError("scatter(reduce=...) is not supported by this engine")
        d, index = self._index_arg("scatter", dim, index, "self")
        src = value if src is None else src
        if isinstance(src, Tensor):
            return _apply("scatter", (self, src), dim=d, index=index)
        return _apply("scatter_value", (self,), dim=d, index=index, value=_fill_value(src, "scatter"))

    def scatter_add(self, dim, index, src):
        """`x.scatter_add(dim, index, src)`: a copy of x with src added along dim at index."""
        d, index = self._index_arg("scatter_add", dim, index, "self")
        return _apply("scatter_add", (self, _tensor_arg(src, "scatter_add", "src", 3)), dim=d, index=index)

    def index_select(self, dim, index):
        """`x.index_select(dim, index)`: the slices of x along dim at the positions in index (a vector)."""
        index = _tensor_arg(index, "index_select", "index", 2)
        if index._data.ndim > 1:
            raise IndexError("index_select(): Index is supposed to be a vector")
        if index._data.dtype.kind not in "iu":
            raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
        d = normalize_dim(dim, self._data.ndim)
        positions = index._data.reshape(-1)
        size = self._data.shape[d] if self._data.ndim else 1
        bad = positions[(positions < 0) | (positions >= size)]
        if bad.size:
            raise IndexError("index out of range in self")
        return _apply("index_select", (self,), dim=d if self._data.ndim else -1, index=positions.astype(np.int64))

    def index_add(self, dim, index, source, *, alpha=1):
        """`x.index_add(dim, index, source, alpha=1)`: a copy of x with alpha·source added along dim at the
        positions in index; a position listed twice receives both rows (how embedding gradients add up)."""
        index = _tensor_arg(index, "index_add", "index", 2)
        source = _tensor_arg(source, "index_add", "source", 3)
        kind, shape = index._data.dtype, self._data.shape
        if kind.kind not in "iu":
            raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: {dtypes.SCALAR_TYPE_NAMES[kind.name]}")
        if index._data.ndim > 1:
            raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {index._data.ndim} with type: "
                             f"{dtypes.SCALAR_TYPE_NAMES[kind.name]} and size: {list(index._data.shape)}")
        d = normalize_dim(dim, self._data.ndim)
        if source._data.dtype != self._data.dtype:
            raise RuntimeError(f"index_add_(): self ({dtypes.SCALAR_TYPE_NAMES[self._data.dtype.name]}) and source "
                               f"({dtypes.SCALAR_TYPE_NAMES[source._data.dtype.name]}) must have the same scalar type")
        if source._data.ndim != len(shape) or any(n != m for k, (n, m) in enumerate(zip(source._data.shape, shape))
                                                  if k != d % len(shape)):
            raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                               f"Got self.shape = {list(shape)} source.shape = {list(source._data.shape)}")
        positions = index._data.reshape(-1)
        if positions.size != source._data.shape[d]:
            raise RuntimeError(f"index_add_(): Number of indices ({positions.size}) should be equal to source.size(dim): "
                               f"({source._data.shape[d]}), for dim: {d % len(shape)}")
        bad = positions[(positions < 0) | (positions >= shape[d])]  # no index counts from the end here
        if bad.size and len(shape) == 1:  # PyTorch's kernel for a vector has its own message
            raise IndexError("index out of range in self")
        if bad.size:
            raise RuntimeError(f"index {bad[0]} is out of bounds for dimension {d % len(shape)} with size {shape[d]}")
        return _apply("index_add", (self, source), dim=d, index=positions.astype(np.int64), alpha=alpha)

    def _index_arg(self, name: str, dim, index, what: str) -> tuple[int, np.ndarray]:
        """gather's and scatter's dim and index, checked with PyTorch's messages."""
        index = _tensor_arg(index, name, "index", 2)
        if index._data.dtype.kind not in "iu":
            raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
        if index._data.ndim != self._data.ndim:
            raise RuntimeError(f"Index tensor must have the same number of dimensions as {what} tensor")
        d = normalize_dim(dim, self._data.ndim)
        size = self._data.shape[d] if self._data.ndim else 1
        bad = index._data[(index._data < 0) | (index._data >= size)]
        if bad.size:
            raise RuntimeError(f"index {bad.reshape(-1)[0]} is out of bounds for dimension {d % max(1, self._data.ndim)} "
                               f"with size {size}")
        for k, (n, m) in enumerate(zip(index._data.shape, self._data.shape)):
            if n > m and k != d % self._data.ndim:
                raise RuntimeError(f"Size does not match at dimension {k} expected index {list(index._data.shape)} to "
                                   f"be no larger than {what} {list(self._data.shape)} apart from dimension "
                                   f"{d % self._data.ndim}")
        return d, index._data.astype(np.int64)

    def __getitem__(self, key):
        return _index(self, key)

    def __setitem__(self, key, value) -> None:
        key = key if isinstance(key, tuple) else (key,)
        value = _as_operand(value)
        if any(isinstance(k, (list, range, np.ndarray, Tensor)) for k in key):  # advanced indexing: index_put_
            self._check_inplace()
            np_key = _advanced_key(self, key)
            self._inplace(_apply("index_put", (self, value), key=np_key))
            return
        if self._requires_grad and self._grad_fn is None and _modes().grad:  # x[i] = v writes into a view of x
            raise RuntimeError(LEAF_VIEW_INPLACE)
        self._check_inplace()
        region = np.arange(self._data.size).reshape(self._data.shape)[_full_key(key, self._data.ndim)]
        self._inplace(_apply("copy_slices", (self, value), index=np.array(region)))
