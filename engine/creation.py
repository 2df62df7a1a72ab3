"""Factory functions of the `torch` namespace: `eye`, `ones`, `arange`, `randn`…"""
from __future__ import annotations

import numpy as np

from engine import dtypes
from engine.batching import check_random
from engine.dims import shape_arg
from engine.tensor import Tensor, _fill_value, guard_shape, new_leaf

_rng = np.random.default_rng(0)


def _itemsize(dtype) -> int | None:
    """Bytes per element of a requested dtype, for the size guard (None: the default's)."""
    return None if dtype is None else np.dtype(dtypes.to_numpy(dtype)).itemsize


def manual_seed(seed: int) -> None:
    """Make `rand`/`randn` reproducible (the engine's own stream, not PyTorch's numbers)."""
    global _rng
    _rng = np.random.default_rng(int(seed))


def _leaf(data: np.ndarray, dtype, requires_grad: bool, default=np.float32) -> Tensor:
    data = data.astype(default if dtype is None else dtypes.to_numpy(dtype), copy=False)
    t = new_leaf(data)
    if requires_grad:
        if data.dtype.kind != "f":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad_(True)
    return t


def _filled(shape, value, dtype, requires_grad):
    shape = shape_arg(shape)
    guard_shape(shape, itemsize=_itemsize(dtype))
    return _leaf(np.full(shape, value), dtype, requires_grad)


def ones(*size, dtype=None, requires_grad=False, device=None) -> Tensor:
    return _filled(size, 1, dtype, requires_grad)


def zeros(*size, dtype=None, requires_grad=False, device=None) -> Tensor:
    return _filled(size, 0, dtype, requires_grad)


def empty(*size, dtype=None, requires_grad=False, device=None) -> Tensor:
    return _filled(size, 0, dtype, requires_grad)


def full(size, fill_value, dtype=None, requires_grad=False, device=None) -> Tensor:
    fill_value = _fill_value(fill_value, "full")  # np.full with a str makes a str array of its length
    if dtype is None and isinstance(fill_value, bool):
        dtype = dtypes.bool_
    elif dtype is None and isinstance(fill_value, int):
        dtype = dtypes.int64
    return _filled(size, fill_value, dtype, requires_grad)


def _like(t: Tensor, value, dtype, requires_grad) -> Tensor:
    return _leaf(np.full(t._data.shape, value), dtype, requires_grad, default=t._data.dtype)


def ones_like(input: Tensor, dtype=None, requires_grad=False) -> Tensor:  # noqa: A002 - PyTorch's name
    return _like(input, 1, dtype, requires_grad)


def zeros_like(input: Tensor, dtype=None, requires_grad=False) -> Tensor:  # noqa: A002
    return _like(input, 0, dtype, requires_grad)


def empty_like(input: Tensor, dtype=None, requires_grad=False) -> Tensor:  # noqa: A002
    """Zeros here: PyTorch's contents are whatever memory held, which no program should read."""
    return _like(input, 0, dtype, requires_grad)


def full_like(input: Tensor, fill_value, dtype=None, requires_grad=False) -> Tensor:  # noqa: A002
    fill_value = _fill_value(fill_value, "full_like")
    return _like(input, fill_value, dtype, requires_grad)


def eye(n: int, m: int | None = None, dtype=None, requires_grad=False, device=None) -> Tensor:
    guard_shape((n, n if m is None else m), itemsize=_itemsize(dtype))
    return _leaf(np.eye(n, m), dtype, requires_grad)


def arange(start, end=None, step=1, dtype=None, requires_grad=False, device=None) -> Tensor:
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    guard_shape((max(0, int(np.ceil((end - start) / step))),), itemsize=_itemsize(dtype))
    values = np.arange(start, end, step)
    integral = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
    return _leaf(values, dtype, requires_grad, default=np.int64 if integral else np.float32)


def linspace(start, end, steps: int, dtype=None, requires_grad=False, device=None) -> Tensor:
    guard_shape((steps,), itemsize=_itemsize(dtype))
    return _leaf(np.linspace(start, end, steps), dtype, requires_grad)


def randn(*size, dtype=None, requires_grad=False, generator=None, device=None) -> Tensor:
    check_random()
    shape = shape_arg(size)
    guard_shape(shape, itemsize=_itemsize(dtype))
    return _leaf(_rng.standard_normal(shape), dtype, requires_grad)


def rand(*size, dtype=None, requires_grad=False, generator=None, device=None) -> Tensor:
    check_random()
    shape = shape_arg(size)
    guard_shape(shape, itemsize=_itemsize(dtype))
    return _leaf(_rng.random(shape), dtype, requires_grad)


def rand_like(input: Tensor, dtype=None, requires_grad=False) -> Tensor:  # noqa: A002
    return rand(*input.shape, dtype=dtypes.from_numpy(input._data.dtype) if dtype is None else dtype,
                requires_grad=requires_grad)


def randn_like(input: Tensor, dtype=None, requires_grad=False) -> Tensor:  # noqa: A002
    return randn(*input.shape, dtype=dtypes.from_numpy(input._data.dtype) if dtype is None else dtype,
                 requires_grad=requires_grad)


def randint(low, high=None, size=None, dtype=None, requires_grad=False, generator=None, device=None) -> Tensor:
    """`randint(high, size)` or `randint(low, high, size)`."""
    check_random()
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing 1 required positional arguments: \"size\"")
    guard_shape(tuple(size), itemsize=_itemsize(dtype))
    return _leaf(_rng.integers(low, high, size=tuple(size)), dtype, requires_grad, default=np.int64)


def randperm(n: int, dtype=None, requires_grad=False, generator=None, device=None) -> Tensor:
    """A random permutation of 0..n-1 (the engine's own stream, not PyTorch's numbers)."""
    check_random()
    guard_shape((n,), itemsize=_itemsize(dtype))
    return _leaf(_rng.permutation(int(n)), dtype, requires_grad, default=np.int64)


def from_numpy(array: np.ndarray) -> Tensor:
    dtypes.from_numpy(array.dtype)
    return Tensor._make(array)
