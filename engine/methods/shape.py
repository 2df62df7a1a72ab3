"""Tensor methods that change shape or layout (views and copies: view, reshape, expand, transpose, flip,
repeat, cumsum/cumprod) and the functions over several tensors (`torch.cat`, `torch.stack`, `torch.where`)."""
from __future__ import annotations

import math

import numpy as np

from engine import dtypes
from engine.dims import normalize_dim, reduction_dims, shape_arg, view_shape
from engine.graph import guard_shape
from engine.methods.indexing import _viewable
from engine.ops import variadic
from engine.tensor import Tensor, _apply, _as_operand, _leading_shape, _run


def cat(tensors, dim=0) -> Tensor:
    """`torch.cat`: join tensors along an existing dim."""
    tensors = [_as_operand(t) for t in tensors]
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    d = normalize_dim(dim, tensors[0]._data.ndim)
    for i, t in enumerate(tensors[1:], 1):
        a, b = tensors[0]._data.shape, t._data.shape
        if len(a) != len(b) or any(x != y for k, (x, y) in enumerate(zip(a, b)) if k != d % len(a)):
            k = next((k for k, (x, y) in enumerate(zip(a, b)) if k != d % len(a) and x != y), 0)
            raise RuntimeError(f"Sizes of tensors must match except in dimension {d % len(a)}. Expected size "
                               f"{a[k] if k < len(a) else 0} but got size {b[k] if k < len(b) else 0} for tensor "
                               f"number {i} in the list.")
    return _run(variadic("cat", len(tensors)), tuple(tensors), {"dim": d})


def stack(tensors, dim=0) -> Tensor:
    """`torch.stack`: join tensors along a new dim."""
    tensors = [_as_operand(t) for t in tensors]
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, t in enumerate(tensors[1:], 1):
        if t._data.shape != tensors[0]._data.shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0]._data.shape)} at entry 0 and {list(t._data.shape)} at entry {i}")
    d = normalize_dim(dim, tensors[0]._data.ndim + 1)
    return _run(variadic("stack", len(tensors)), tuple(tensors), {"dim": d})


def where(condition, input, other) -> Tensor:  # noqa: A002 - PyTorch's argument names
    """`torch.where(condition, input, other)`: pick elementwise; the gradient follows the pick."""
    input, other = _as_operand(input), _as_operand(other)
    if not isinstance(condition, Tensor):
        guard_shape(_leading_shape(condition))
    a = input if isinstance(input, Tensor) else Tensor._make(np.asarray(input, dtype=np.float32))
    cond = np.asarray(condition._data if isinstance(condition, Tensor) else condition, dtype=bool)
    return _apply("where", (a, other), condition=cond)


class ShapeMethods:
    """Shapes and views. (attached to `Tensor` by `engine.registry`)"""

    def cumsum(self, dim, *, dtype=None):
        source = self if dtype is None else self.to(dtype)
        return _apply("cumsum", (source,), dim=normalize_dim(dim, max(1, source._data.ndim)))

    def cumprod(self, dim, *, dtype=None):
        source = self if dtype is None else self.to(dtype)
        return _apply("cumprod", (source,), dim=normalize_dim(dim, max(1, source._data.ndim)))

    def unbind(self, dim=0):
        """The slices along `dim`, each a view (UnbindBackward0)."""
        dim = normalize_dim(dim, self._data.ndim) % self._data.ndim  # (counted from the start: the key's position)
        rest = (slice(None),) * (self._data.ndim - dim - 1)  # (a key of every dim: the rule places by it)
        return tuple(_apply("unbind", (self,), key=(slice(None),) * dim + (i,) + rest)
                     for i in range(self._data.shape[dim]))

    def split(self, split_size_or_sections, dim=0):
        """Views of consecutive pieces along `dim`: of `split_size` each (the last may be smaller), or of the given
        sizes (SplitWithSizesBackward0)."""
        dim = normalize_dim(dim, max(1, self._data.ndim)) % max(1, self._data.ndim)  # (from the start, as above)
        n = self._data.shape[dim]
        if isinstance(split_size_or_sections, int):
            size = split_size_or_sections
            if size < 0:
                raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
            sizes, key = ([size] * (n // size) + ([n % size] if n % size else [])) if size else [0], "split"
        else:
            sizes, key = list(split_size_or_sections), "split_with_sizes"
            if sum(sizes) != n:
                raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size "
                                   f"at dimension {dim}), but got split_sizes={sizes}")
        pieces, start, rest = [], 0, (slice(None),) * (self._data.ndim - dim - 1)
        for size in sizes:
            pieces.append(_apply(key, (self,), key=(slice(None),) * dim + (slice(start, start + size),) + rest))
            start += size
        return tuple(pieces)

    def chunk(self, chunks, dim=0):
        """`chunks` pieces at most, of equal size but the last (a split by ceil(size / chunks))."""
        if chunks <= 0:
            raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
        n = self._data.shape[normalize_dim(dim, max(1, self._data.ndim))]
        return self.split(max(1, -(-n // chunks)), dim)

    def repeat(self, *repeats):
        """`x.repeat(2, 3)`: x tiled (at least one repeat count per dim; more add leading dims)."""
        repeats = shape_arg(repeats)
        if len(repeats) < self._data.ndim:
            raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                               "tensor")
        if any(r < 0 for r in repeats):
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(repeats)}: {list(repeats)}")
        return _apply("repeat", (self,), repeats=repeats)

    def flip(self, *dims):
        return _apply("flip", (self,), dims=reduction_dims(shape_arg(dims), self._data.ndim))

    # --- shapes -------------------------------------------------------------------------------
    def view(self, *shape):
        shape = view_shape(shape_arg(shape), self._data.size)
        if not self._data.flags.c_contiguous and not _viewable(self._data, shape):
            raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                               "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
        return _apply("view", (self,), shape=shape)

    def reshape(self, *shape):
        """A view when the memory layout allows one (as PyTorch decides), else a copy."""
        shape = view_shape(shape_arg(shape), self._data.size)
        if self._data.flags.c_contiguous:
            return _apply("view", (self,), shape=shape)
        if _viewable(self._data, shape):
            return _apply("reshape_alias", (self,), shape=shape)
        return _apply("unsafe_view", (self.clone(),), shape=shape)

    def view_as(self, other):
        return self.view(other.shape)

    def reshape_as(self, other):
        return self.reshape(other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        n = self._data.ndim
        if n == 0:
            normalize_dim(start_dim, 0), normalize_dim(end_dim, 0)
            return self.reshape(1)
        start, end = normalize_dim(start_dim, n) % n, normalize_dim(end_dim, n) % n
        if start > end:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        if start == end:
            return self
        shape = self._data.shape
        return self.reshape(shape[:start] + (math.prod(shape[start:end + 1]),) + shape[end + 1:])

    def unsqueeze(self, dim):
        d = normalize_dim(dim, self._data.ndim + 1)
        return _apply("unsqueeze", (self,), dim=d)

    def squeeze(self, dim=None):
        if dim is None:
            return _apply("squeeze", (self,))
        d = normalize_dim(dim, self._data.ndim)
        return _apply("squeeze_dim", (self,), dim=d)

    def expand(self, *shape):
        shape = list(shape_arg(shape))
        lead = len(shape) - self._data.ndim
        if lead < 0:
            raise RuntimeError(f"expand(torch.{dtypes.SCALAR_TYPE_NAMES[self._data.dtype.name]}Tensor{{{list(self.shape)}}}, "
                               f"size={shape}): the number of sizes provided ({len(shape)}) must be greater or equal "
                               f"to the number of dimensions in the tensor ({self._data.ndim})")
        for i, s in enumerate(self._data.shape):
            if shape[lead + i] == -1:
                shape[lead + i] = s
        try:
            np.broadcast_shapes(self._data.shape, tuple(shape))
        except ValueError:
            raise RuntimeError(f"The expanded size of the tensor ({shape[-1]}) must match the existing size "
                               f"({self._data.shape[-1]}) at non-singleton dimension {len(shape) - 1}.  "
                               f"Target sizes: [{', '.join(map(str, shape))}].  Tensor sizes: "
                               f"[{', '.join(map(str, self._data.shape))}]") from None
        return _apply("expand", (self,), shape=tuple(shape))

    def expand_as(self, other):
        return self.expand(other.shape)

    def broadcast_to(self, size):
        """`torch.broadcast_to`: `expand` under NumPy's name (the same ExpandBackward0)."""
        return self.expand(size)

    def t(self):
        if self._data.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D")
        return _apply("t", (self,))

    @property
    def T(self):  # noqa: N802 - PyTorch's name
        return self.permute(*reversed(range(self._data.ndim)))

    @property
    def mT(self):  # noqa: N802
        return self.transpose(-2, -1)

    def transpose(self, dim0, dim1):
        n = self._data.ndim
        return _apply("transpose", (self,), dim0=normalize_dim(dim0, n), dim1=normalize_dim(dim1, n))

    def permute(self, *dims):
        dims = tuple(d % max(1, self._data.ndim) for d in shape_arg(dims))
        if sorted(dims) != list(range(self._data.ndim)):
            raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the "
                               "length of the desired ordering of dimensions i.e. input.dim() = "
                               f"{self._data.ndim} is not equal to len(dims) = {len(dims)}")
        return _apply("permute", (self,), dims=dims)

    def clone(self):
        return _apply("clone", (self,))

    def contiguous(self):
        return self if self._data.flags.c_contiguous else self.clone()

    def is_contiguous(self) -> bool:
        return bool(self._data.flags.c_contiguous)
