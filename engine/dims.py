"""Dims and shapes as PyTorch reads them from a call's arguments (negative dims, `-1` in a view shape, nested
lists), with PyTorch's messages."""
from __future__ import annotations

import numpy as np

from engine import dtypes


def normalize_dim(dim: int, ndim: int) -> int:
    """A dim as a negative index (so rules stay right with leading batch axes); PyTorch's error if out of range."""
    low, high = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"dim must be an int, not {type(dim).__name__}")
    if dim < low or dim > high:
        raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})")
    return dim - ndim if dim >= 0 and ndim else (dim if ndim else -1)


def reduction_dims(dim, ndim) -> tuple[int, ...]:
    """Reduction dims as negative indices; () for a 0-dim tensor (dim 0 or -1 reduce over nothing)."""
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    dims = tuple(normalize_dim(d, ndim) for d in dims)
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"dim {next(d % ndim for d in dims if dims.count(d) > 1)} appears multiple times in the "
                           "list of dims")
    return dims if ndim else ()


def shape_arg(shape) -> tuple:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, dtypes.Size)):
        shape = shape[0]
    return tuple(int(s) for s in shape)


def view_shape(shape, numel) -> tuple[int, ...]:
    """Resolve a single -1 and check the element count, with PyTorch's message."""
    shape = list(shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = int(np.prod([s for s in shape if s != -1])) if shape else 1
    if -1 in shape:
        if known == 0 and numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape [{', '.join(map(str, shape))}] because "
                               "the unspecified dimension size -1 can be any value and is ambiguous")
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
        shape[shape.index(-1)] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
    return tuple(shape)


def nested_shape(data, dim=0):
    """The shape of nested lists, with PyTorch's message for ragged ones."""
    if not isinstance(data, (list, tuple)):
        return ()
    if not data:
        return (0,)
    inner = [nested_shape(d, dim + 1) for d in data]
    first = inner[0]
    for d, shape in zip(data, inner):
        if shape != first:
            length = len(d) if isinstance(d, (list, tuple)) else None
            expected = first[0] if first else None
            if length is None or expected is None:
                raise ValueError(f"expected sequence of length {expected} at dim {dim + 1} (got {length})")
            raise ValueError(f"expected sequence of length {expected} at dim {dim + 1} (got {length})")
    return (len(data),) + first
