"""The Jacobian in batched reverse sweeps, and one pull-back, under `torch.autograd.functional` and `torch.func`.

`jacobian_of` seeds the sweep with every one-hot cotangent at once, stacked along
a leading batch axis, so the whole matrix costs one pass over the graph instead
of one backward per output element. (PyTorch has no top-level `torch.jacobian`
or `torch.vjp`, so neither has the engine.)
"""
from __future__ import annotations

import numpy as np

from engine.backward import run_backward
from engine.tensor import Tensor, guard_shape


def pull(y: Tensor, x: Tensor, cotangents: np.ndarray, nbatch: int, api: str, retain_graph: bool = True) -> np.ndarray:
    """The cotangents (`nbatch` leading batch axes) pulled back from y to x by the one backward, as an array
    (zeros where y does not depend on x)."""
    if not y.requires_grad or not x.requires_grad:
        return np.zeros(cotangents.shape[:nbatch] + x._data.shape, dtype=x._data.dtype)
    (g,) = run_backward([y], [cotangents], inputs=[x], retain_graph=retain_graph, accumulate=False, nbatch=nbatch,
                        api=api)
    return np.zeros(cotangents.shape[:nbatch] + x._data.shape, dtype=x._data.dtype) if g is None else g._data


CHUNK_BYTES = 1 << 20  # cotangent block per sweep: small enough for the allocator to reuse between blocks


def jacobian_of(y: Tensor, x: Tensor, retain_graph: bool = False, api: str = "jacobian") -> Tensor:
    """d y / d x for a recorded y, shaped `y.shape + x.shape`: the one-hot cotangents go through the graph as a
    batch, in blocks of rows — one sweep per block instead of one per output element, and blocks small enough
    that their memory is recycled rather than faulted in afresh (fresh pages cost more than the arithmetic)."""
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
