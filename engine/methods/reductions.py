"""Tensor methods of the reductions: sum, mean, max/min (and their `(values, indices)` results), argmax,
softmax, norm, prod, var/std, logsumexp — argument parsers that pick a record (`sum` or `sum_dim`…)."""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from engine import dtypes
from engine.dims import normalize_dim, reduction_dims
from engine.tensor import Tensor, _apply, _binary

MaxResult = namedtuple("max", ["values", "indices"])


MinResult = namedtuple("min", ["values", "indices"])
SortResult = namedtuple("sort", ["values", "indices"])
TopkResult = namedtuple("topk", ["values", "indices"])


for _result in (MaxResult, MinResult, SortResult, TopkResult):
    _result.__repr__ = lambda self: (f"torch.return_types.{type(self).__name__}(\nvalues={self.values!r},\n"
                                      f"indices={self.indices!r})")


class ReductionsMethods:
    """Reductions. (attached to `Tensor` by `engine.registry`)"""

    # --- reductions ---------------------------------------------------------------------------
    def _reduce(self, key: str, dim, keepdim: bool, dtype_message: str | None = None):
        if dtype_message and self._data.dtype.kind != "f":
            raise RuntimeError(dtype_message.format(dtypes.SCALAR_TYPE_NAMES[self._data.dtype.name]))
        if dim is None:
            return _apply(key, (self,))
        return _apply(key + "_dim", (self,), dims=reduction_dims(dim, self._data.ndim), keepdim=keepdim)

    def sum(self, dim=None, keepdim=False, *, dtype=None):
        source = self if dtype is None else self.to(dtype)
        return source._reduce("sum", dim, keepdim)

    def mean(self, dim=None, keepdim=False, *, dtype=None):
        source = self if dtype is None else self.to(dtype)
        return source._reduce("mean", dim, keepdim, "mean(): could not infer output dtype. Input dtype must be "
                                                     "either a floating point or complex dtype. Got: {}")

    def _extremum(self, key: str, dim, keepdim: bool, result_type, other=None):
        if isinstance(dim, Tensor):
            other, dim = dim, None
        if other is not None:
            return _binary("maximum" if key == "max" else "minimum", self, other)
        if dim is None:
            if self._data.size == 0:
                raise RuntimeError(f"{key}(): Expected reduction dim to be specified for input.numel() == 0. "
                                   "Specify the reduction dim with the 'dim' argument.")
            return _apply(key, (self,))
        d = normalize_dim(dim, self._data.ndim)
        pick = np.argmax if key == "max" else np.argmin
        indices = np.expand_dims(pick(self._data, axis=d), d) if self._data.ndim else np.zeros((), np.int64)
        values = _apply(key + "_dim", (self,), dim=d, keepdim=keepdim, indices=indices)
        return result_type(values, Tensor._make(indices if keepdim else np.squeeze(indices, d).astype(np.int64)))

    def max(self, dim=None, keepdim=False):
        return self._extremum("max", dim, keepdim, MaxResult)

    def min(self, dim=None, keepdim=False):
        return self._extremum("min", dim, keepdim, MinResult)

    def amax(self, dim=(), keepdim=False):
        return self._amax("amax", dim, keepdim)

    def amin(self, dim=(), keepdim=False):
        return self._amax("amin", dim, keepdim)

    def _amax(self, key, dim, keepdim):
        """amax/amin: the extremum over `dim` (() or None: every dim), ties sharing the gradient."""
        ndim = self._data.ndim
        dims = reduction_dims(tuple(range(ndim)) if dim in ((), None, []) else dim, ndim)
        for d in dims:
            if self._data.shape[d] == 0:
                raise IndexError(f"{key}(): Expected reduction dim {d % ndim} to have non-zero size.")
        return _apply(key, (self,), dims=dims or None, keepdim=keepdim)

    def sort(self, dim=-1, descending=False, stable=False):
        """(values, indices) along dim, ties in their original order (nan counts as largest, as in PyTorch)."""
        d = normalize_dim(dim, self._data.ndim)
        return self._pick("sort", SortResult, d, _order(self._data, d, descending))

    def argsort(self, dim=-1, descending=False, stable=False):
        return self.sort(dim, descending).indices

    def topk(self, k, dim=-1, largest=True, sorted=True):  # noqa: A002 - PyTorch's argument name
        """The k largest (or smallest) along dim, in order, with their indices."""
        d = normalize_dim(dim, self._data.ndim)
        size = self._data.shape[d] if self._data.ndim else 1
        if not 0 <= k <= size:
            raise RuntimeError("selected index k out of range")
        order = _order(self._data, d, largest)
        return self._pick("topk", TopkResult, d, np.take(order, np.arange(k), axis=d) if self._data.ndim else order)

    def _pick(self, key, result_type, d, indices):
        values = _apply(key, (self,), dim=d, indices=indices)
        return result_type(values, Tensor._make(indices.astype(np.int64)))

    def argmax(self, dim=None, keepdim=False):
        return self._arg_extremum("argmax", np.argmax, self.max, dim, keepdim)

    def argmin(self, dim=None, keepdim=False):
        return self._arg_extremum("argmin", np.argmin, self.min, dim, keepdim)

    def _arg_extremum(self, name, over_all, reduce, dim, keepdim):
        """argmax/argmin: over all elements a flat index (numpy's), along `dim` the indices of max/min."""
        if dim is None and self._data.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        if dim is None:
            return Tensor._make(np.asarray(over_all(self._data), dtype=np.int64))
        return reduce(dim, keepdim).indices

    def softmax(self, dim, dtype=None):
        source = self if dtype is None else self.to(dtype)
        return _apply("softmax", (source,), dim=source._softmax_dim("softmax", dim))

    def log_softmax(self, dim, dtype=None):
        source = self if dtype is None else self.to(dtype)
        return _apply("log_softmax", (source,), dim=source._softmax_dim("log_softmax", dim))

    def _softmax_dim(self, name: str, dim) -> int:
        d = normalize_dim(dim, self._data.ndim)
        if self._data.dtype.kind != "f":
            kernel = f"{name}_lastdim_kernel_impl" if d == -1 or self._data.ndim <= 1 else f"{name}_kernel_impl"
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{dtypes.SCALAR_TYPE_NAMES[self._data.dtype.name]}'")
        return d

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        """`x.norm(p=2, dim=None, keepdim=False)`: the vector p-norm over `dim` (all elements by default)."""
        source = self if dtype is None else self.to(dtype)
        if source._data.dtype.kind != "f":
            raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                               f"{dtypes.SCALAR_TYPE_NAMES[source._data.dtype.name]}")
        if isinstance(p, str):
            if p != "fro":
                raise NotImplementedError(f"norm(p={p!r}) (a matrix norm) is not supported by this engine; "
                                          "p may be a number, inf, -inf or 'fro'")
            if dim is not None and len(reduction_dims(dim, source._data.ndim)) > 2:
                raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got " +
                                   " ".join(str(d) for d in dim))
            p = 2
        if not isinstance(p, (int, float)) or isinstance(p, bool):
            raise TypeError(f"norm(): argument 'p' must be a number or a string, not {type(p).__name__}")
        dims = None if dim is None else reduction_dims(dim, source._data.ndim)
        if dims is not None and not dims and source._data.ndim:
            dims = None  # dim=() (an empty list) means every dim, as in linalg.vector_norm
        if source._data.size == 0 and (p < 0 or p == math.inf):
            shown = ("-" if p < 0 else "") + "inf" if abs(p) == math.inf else f"{p:g}"
            empty = [d % source._data.ndim for d in dims or () if source._data.shape[d] == 0]
            if dims is None:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {shown} norm on an empty tensor because "
                                   "the operation does not have an identity")
            if empty:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {shown} norm on the dimension {empty[0]}"
                                   "because this dimension is empty and the operation does not have an identity")
        return _apply("norm", (source,), p=int(p) if math.isfinite(p) and p == int(p) else float(p), dims=dims,
                      keepdim=bool(keepdim))

    def prod(self, dim=None, keepdim=False, *, dtype=None):
        source = self if dtype is None else self.to(dtype)
        if dim is None:
            return _apply("prod", (source,))
        if isinstance(dim, (tuple, list)):
            raise TypeError("prod(): argument 'dim' (position 1) must be int, not " + type(dim).__name__)
        d = reduction_dims(dim, source._data.ndim)
        return _apply("prod_dim", (source,), dim=d[0] if d else None, keepdim=bool(keepdim))

    def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        """`var(dim=None, *, correction=1, keepdim=False)`, `var(dim, unbiased, keepdim=False)`, `var(unbiased)`:
        PyTorch's three forms, read as PyTorch reads them (`x.var(1)` is over dim 1)."""
        return self._moment("var", dim, unbiased, keepdim, correction)

    def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        """The same forms as `var`."""
        return self._moment("std", dim, unbiased, keepdim, correction)

    def _moment(self, key, dim, unbiased, keepdim, correction):
        if isinstance(dim, bool) and unbiased is None:  # the `var(bool unbiased)` form
            dim, unbiased = None, dim
        if unbiased is not None and not isinstance(unbiased, bool):
            raise TypeError(f"{key}() received an invalid combination of arguments - got "
                            f"({type(dim).__name__}, {type(unbiased).__name__}), but expected one of:\n"
                            " * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n"
                            " * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n"
                            " * (bool unbiased = True)\n")
        if unbiased is not None and correction is not None:
            raise TypeError(f"{key}() received an invalid combination of arguments: both unbiased and correction")
        if self._data.dtype.kind != "f":
            raise RuntimeError("std and var only support floating point and complex dtypes")
        correction = int(unbiased) if unbiased is not None else 1 if correction is None else correction
        dims = None if dim is None else reduction_dims(dim, self._data.ndim)
        return _apply(key, (self,), dims=dims, correction=correction, keepdim=bool(keepdim))

    def logsumexp(self, dim, keepdim=False):
        dims = reduction_dims(dim, self._data.ndim)
        return _apply("logsumexp", (self,), dims=dims if dims or not self._data.ndim else None,
                      keepdim=bool(keepdim))


def _order(a: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    """Stable argsort along dim; descending keeps ties in their original order and puts nan first."""
    if a.ndim == 0:
        return np.zeros((), np.int64)
    if not descending:
        return np.argsort(a, axis=dim, kind="stable")
    key = -a.astype(np.float64) if a.dtype.kind in "fiu" else ~a
    if a.dtype.kind == "f":
        key = np.where(np.isnan(a), -np.inf, key)
        ranked = np.argsort(key, axis=dim, kind="stable")
        nan_first = np.argsort(~np.isnan(np.take_along_axis(a, ranked, dim)), axis=dim, kind="stable")
        return np.take_along_axis(ranked, nan_first, dim)
    return np.argsort(key, axis=dim, kind="stable")
