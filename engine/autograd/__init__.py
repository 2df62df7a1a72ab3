"""`torch.autograd`: gradients without touching `.grad` (first and higher order), anomaly detection,
custom Functions, gradcheck, and the functional API (jacobian, hessian, vjp, jvp, hvp, vhp)."""
from __future__ import annotations

import numpy as np

from engine import graph, state  # noqa: F401 - graph: torch.autograd.graph
from engine.backward import run_backward
from engine.tensor import Tensor, _input_list

__all__ = ["Function", "backward", "detect_anomaly", "forward_ad", "functional", "grad", "gradcheck",
           "gradgradcheck", "set_detect_anomaly"]


def _tuple(x) -> tuple:
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _grad_outputs(grad_outputs, n: int) -> list | None:
    if grad_outputs is None:
        return None
    return list(_tuple(grad_outputs) if not isinstance(grad_outputs, (list, tuple)) else grad_outputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """d outputs / d inputs (a tuple of Tensors), as `torch.autograd.grad`; with `create_graph=True` the
    gradients have a graph of their own, so they can be differentiated again."""
    return gradients(outputs, inputs, grad_outputs, retain_graph=retain_graph, create_graph=create_graph,
                     allow_unused=allow_unused, is_grads_batched=is_grads_batched,
                     materialize_grads=materialize_grads, api="autograd.grad")


def gradients(outputs, inputs, grad_outputs=None, *, retain_graph=None, create_graph=False, allow_unused=None,
              is_grads_batched=False, materialize_grads=False, api: str) -> tuple:
    """`autograd.grad` for a caller named `api` (the transforms record themselves under their own name)."""
    if is_grads_batched and create_graph:
        raise NotImplementedError("autograd.grad(is_grads_batched=True, create_graph=True) is not supported by "
                                  "this engine")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
                         "allow_unused=False.")
    allow_unused = bool(allow_unused) or materialize_grads
    outputs, inputs = _tuple(outputs), _tuple(inputs)
    for x in inputs:
        if not x.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    results = run_backward(outputs, _grad_outputs(grad_outputs, len(outputs)), inputs=inputs,
                           retain_graph=retain_graph, create_graph=create_graph, accumulate=False,
                           nbatch=1 if is_grads_batched else 0, api=api)
    for i, (x, g) in enumerate(zip(inputs, results)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
            if materialize_grads:
                results[i] = Tensor._make(np.zeros(_batch(grad_outputs, is_grads_batched) + x._data.shape,
                                                   dtype=x._data.dtype))
    return tuple(results)


def _batch(grad_outputs, batched: bool) -> tuple:
    if not batched:
        return ()
    first = _tuple(grad_outputs)[0]
    return tuple(first.shape[:1])


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """`torch.autograd.backward(tensors, grad_tensors)`: accumulate into the leaves' `.grad` (only into
    `inputs`, leaves or not, when given)."""
    tensors = _tuple(tensors)
    if inputs is not None:
        inputs = _input_list(inputs)
    run_backward(tensors, _grad_outputs(grad_tensors, len(tensors)), inputs=inputs, retain_graph=retain_graph,
                 create_graph=create_graph, api="autograd.backward")


# --- anomaly detection ----------------------------------------------------------------------------------------
class set_detect_anomaly:  # noqa: N801 - PyTorch's spelling
    """`torch.autograd.set_detect_anomaly(mode, check_nan=True)`: record each op's forward stack, and stop a
    backward whose rule returns nan, naming the op (also usable as a context manager)."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = state.update(anomaly=bool(mode), check_nan=bool(check_nan))

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        state.restore(self.prev, "anomaly", "check_nan")


class detect_anomaly:  # noqa: N801
    """`with torch.autograd.detect_anomaly():` — anomaly detection inside the block only."""

    def __init__(self, check_nan: bool = True) -> None:
        import warnings

        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        self.prev = state.update(anomaly=True, check_nan=self.check_nan)
        return self

    def __exit__(self, *exc) -> None:
        state.restore(self.prev, "anomaly", "check_nan")


from engine.autograd_extra import Function, forward_ad, functional, gradcheck, gradgradcheck  # noqa: E402,F401
