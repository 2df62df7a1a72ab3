"""The Jacobian and vector-Jacobian products, each in one batched reverse sweep.

`jacobian` seeds the sweep with every one-hot cotangent at once, stacked along
a leading batch axis, so the whole matrix costs one pass over the graph instead
of one backward per output element.
"""
from __future__ import annotations

import numpy as np

from engine.graph import sweep
from engine.tensor import Tensor, _as_operand


def _fresh_input(x: Tensor) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"The inputs given to jacobian must be Tensors, not {type(x).__name__}")
    if not x.is_floating_point():
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    return x.detach().requires_grad_(True)


def _pullback(y: Tensor, x: Tensor, cotangents: np.ndarray, nbatch: int, retain_graph: bool) -> np.ndarray:
    """Sum of the cotangents pulled back to `x` (zeros where y does not depend on x)."""
    batch = cotangents.shape[:nbatch]
    if not y.requires_grad:
        return np.zeros(batch + x._data.shape, dtype=x._data.dtype)
    leaves = sweep(y._grad_edge(), cotangents, nbatch=nbatch, retain_graph=retain_graph)
    g = leaves.get(x._grad_edge())
    if g is None:
        return np.zeros(batch + x._data.shape, dtype=x._data.dtype)
    return np.broadcast_to(g, batch + x._data.shape)


def jacobian(func, inputs: Tensor) -> Tensor:
    """d func(x) / d x, shaped `out.shape + x.shape`, as `torch.autograd.functional.jacobian`."""
    x = _fresh_input(inputs)
    y = _as_operand(func(x))
    m = y._data.size
    seeds = np.eye(m, dtype=y._data.dtype).reshape((m,) + y._data.shape)
    rows = _pullback(y, x, seeds, nbatch=1, retain_graph=False)
    rows = np.asarray(rows, dtype=x._data.dtype, order="C")  # one copy at most
    return Tensor._make(rows.reshape(y._data.shape + x._data.shape))


def vjp(func, inputs: Tensor, v: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """(func(x), vᵀ·J) as `torch.autograd.functional.vjp`; v may be omitted for a single-element output."""
    x = _fresh_input(inputs)
    y = _as_operand(func(x))
    if v is None:
        if y._data.size != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function returns a single "
                               "Tensor with a single element.")
        seed = np.ones(y._data.shape, dtype=y._data.dtype)
    else:
        seed = _as_operand(v)._data.astype(y._data.dtype)
        if seed.shape != y._data.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of torch.Size({list(seed.shape)}) "
                               f"and output[0] has a shape of torch.Size({list(y._data.shape)}).")
    g = _pullback(y, x, seed, nbatch=0, retain_graph=False)
    return y.detach(), Tensor._make(np.array(g, dtype=x._data.dtype))
