"""`torch.autograd`: gradients without touching `.grad`, and the functional Jacobian/VJP."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from engine.functional import jacobian, vjp
from engine.graph import as_grad, sweep
from engine.tensor import Tensor

functional = SimpleNamespace(jacobian=jacobian, vjp=vjp)
__all__ = ["backward", "functional", "grad"]


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False):
    """d outputs / d inputs (a tuple of Tensors), as `torch.autograd.grad`."""
    if create_graph:
        raise NotImplementedError("create_graph=True (higher-order gradients) is not supported by this engine")
    single = isinstance(inputs, Tensor)
    inputs = (inputs,) if single else tuple(inputs)
    output = outputs if isinstance(outputs, Tensor) else outputs[0]
    if not output.requires_grad:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    if grad_outputs is None:
        if output.numel() != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        seed = np.ones(output.shape, dtype=output._data.dtype)
    else:
        go = grad_outputs if isinstance(grad_outputs, Tensor) else grad_outputs[0]
        seed = go._data.astype(output._data.dtype)
    leaves = sweep(output._grad_edge(), seed, retain_graph=bool(retain_graph))
    result = []
    for i, x in enumerate(inputs):
        g = leaves.get(x._grad_edge()) if x.requires_grad else None
        if g is None and not allow_unused:
            raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                               "Set allow_unused=True if this is the desired behavior.")
        result.append(None if g is None else Tensor._make(as_grad(g, x._data)))
    return tuple(result)


def backward(tensors, grad_tensors=None, retain_graph=None):
    """`torch.autograd.backward(y, v)`, the same as `y.backward(v)`."""
    tensors.backward(grad_tensors, retain_graph=retain_graph)
