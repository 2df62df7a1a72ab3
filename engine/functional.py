"""The Jacobian and vector-Jacobian products, each in one batched reverse sweep.

`jacobian` seeds the sweep with every one-hot cotangent at once, stacked along
a leading batch axis, so the whole matrix costs one pass over the graph instead
of one backward per output element.
"""
from __future__ import annotations

import numpy as np

from engine.backward import run_backward
from engine.graph import as_grad
from engine.tensor import Tensor, _as_operand, guard_shape


def _fresh_input(x: Tensor) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"The inputs given to jacobian must be Tensors, not {type(x).__name__}")
    if not x.is_floating_point():
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    return x.detach().requires_grad_(True)


def pull(y: Tensor, x: Tensor, cotangents: np.ndarray, nbatch: int, api: str, retain_graph: bool = True) -> np.ndarray:
    """The cotangents (`nbatch` leading batch axes) pulled back from y to x by the one backward, as an array
    (zeros where y does not depend on x)."""
    if not y.requires_grad or not x.requires_grad:
        return np.zeros(cotangents.shape[:nbatch] + x._data.shape, dtype=x._data.dtype)
    (g,) = run_backward([y], [cotangents], inputs=[x], retain_graph=retain_graph, accumulate=False, nbatch=nbatch,
                        api=api)
    return np.zeros(cotangents.shape[:nbatch] + x._data.shape, dtype=x._data.dtype) if g is None else g._data


CHUNK_BYTES = 1 << 20  # cotangent block per sweep: small enough for the allocator to reuse between blocks


def jacobian(func, inputs: Tensor) -> Tensor:
    """d func(x) / d x, shaped `out.shape + x.shape`, as `torch.autograd.functional.jacobian`.

    The one-hot cotangents go through the graph as a batch, in blocks of rows: one sweep per block instead
    of one per output element, and blocks small enough that their memory is recycled rather than faulted
    in afresh (fresh pages cost more than the arithmetic on them)."""
    x = _fresh_input(inputs)
    return jacobian_of(_as_operand(func(x)), x, api="jacobian")


def jacobian_of(y: Tensor, x: Tensor, retain_graph: bool = False, api: str = "jacobian") -> Tensor:
    """d y / d x for a recorded y, in blocks of batched sweeps (see `jacobian`)."""
    m, out_shape = y._data.size, y._data.shape
    guard_shape(out_shape + x._data.shape)  # the Jacobian is output × input: vetted before it is made
    result = np.empty((m,) + x._data.shape, dtype=x._data.dtype)
    rows = max(1, CHUNK_BYTES // max(1, max(m, x._data.size) * y._data.itemsize))
    for start in range(0, m, rows):
        stop = min(m, start + rows)
        seeds = np.zeros((stop - start, m), dtype=y._data.dtype)
        seeds[np.arange(stop - start), np.arange(start, stop)] = 1
        result[start:stop] = pull(y, x, seeds.reshape((stop - start,) + out_shape), 1, api,
                                  retain_graph=retain_graph or stop < m)
    return Tensor._make(result.reshape(out_shape + x._data.shape))


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
    g = pull(y, x, seed, 0, "vjp", retain_graph=False)
    return y.detach(), Tensor._make(as_grad(g, x._data))
