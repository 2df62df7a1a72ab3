"""`torch.autograd`: gradients without touching `.grad` (first and higher order), anomaly detection,
custom Functions, gradcheck, and the functional API (jacobian, hessian, vjp, jvp, hvp, vhp)."""
from __future__ import annotations

import numpy as np

from engine import graph
from engine.graph import as_grad, sweep
from engine.tensor import CREATE_GRAPH_CYCLE, Tensor, _post_accumulate

__all__ = ["Function", "backward", "detect_anomaly", "forward_ad", "functional", "grad", "gradcheck",
           "gradgradcheck", "set_detect_anomaly"]


def _tuple(x) -> tuple:
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _seeds(outputs: tuple, grad_outputs, create_graph: bool) -> list:
    """The cotangent of each output: its grad_output, or ones for a single-element output."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    else:
        grad_outputs = _tuple(grad_outputs) if not isinstance(grad_outputs, (list, tuple)) else tuple(grad_outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grad_outputs)} gradients")
    seeds = []
    for i, (out, go) in enumerate(zip(outputs, grad_outputs)):
        if go is None:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            seed = np.ones(out._data.shape, dtype=out._data.dtype)
            seeds.append(Tensor._make(seed) if create_graph else seed)
            continue
        if not isinstance(go, Tensor):
            go = Tensor._make(np.asarray(go, dtype=out._data.dtype))
        if go._data.shape != out._data.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {go.shape!r} and output[{i}] "
                               f"has a shape of {out.shape!r}.")
        seeds.append(go._convert(out._data.dtype) if create_graph else go._data.astype(out._data.dtype, copy=False))
    return seeds


def _run_backward(outputs: tuple, seeds: list, retain_graph, create_graph: bool, capture=None) -> dict:
    for i, out in enumerate(outputs):
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    if retain_graph is None:
        retain_graph = create_graph
    edges = [out._grad_edge() for out in outputs]
    root, cotangent = (edges[0], seeds[0]) if len(edges) == 1 else (edges, seeds)
    return sweep(root, cotangent, retain_graph=bool(retain_graph), create_graph=create_graph, capture=capture)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """d outputs / d inputs (a tuple of Tensors), as `torch.autograd.grad`; with `create_graph=True` the
    gradients have a graph of their own, so they can be differentiated again."""
    if is_grads_batched:
        raise NotImplementedError("autograd.grad(is_grads_batched=True) is not supported by this engine")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
                         "allow_unused=False.")
    allow_unused = bool(allow_unused) or materialize_grads
    outputs, inputs = _tuple(outputs), _tuple(inputs)
    for x in inputs:
        if not x.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    seeds = _seeds(outputs, grad_outputs, create_graph)
    edges = [x._grad_edge() for x in inputs]
    reached = _run_backward(outputs, seeds, retain_graph, create_graph, capture=set(edges))
    result = []
    for i, (x, edge) in enumerate(zip(inputs, edges)):
        g = reached.get(edge)
        if g is None:
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
            result.append(Tensor._make(np.zeros_like(x._data)) if materialize_grads else None)
        elif isinstance(g, Tensor):
            result.append(g if g._data.shape == x._data.shape else g.expand(*x._data.shape))
        else:
            result.append(Tensor._make(as_grad(g, x._data)))
    return tuple(result)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """`torch.autograd.backward(tensors, grad_tensors)`: accumulate into the leaves' `.grad` (only into
    `inputs`, leaves or not, when given)."""
    if inputs is None:
        tensors = _tuple(tensors)
        if len(tensors) == 1:
            g = grad_tensors[0] if isinstance(grad_tensors, (list, tuple)) else grad_tensors
            tensors[0].backward(g, retain_graph=retain_graph, create_graph=create_graph)
            return
    tensors = _tuple(tensors)
    if inputs is not None:
        inputs = _tuple(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        for x in inputs:
            if not x.requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if create_graph:
        import warnings

        warnings.warn(CREATE_GRAPH_CYCLE, UserWarning, stacklevel=2)
    seeds = _seeds(tensors, grad_tensors, create_graph)
    capture = None if inputs is None else {x._grad_edge() for x in inputs}
    reached = _run_backward(tensors, seeds, retain_graph, create_graph, capture=capture)
    targets = inputs if inputs is not None else [acc.variable for acc in reached
                                                if type(acc) is graph.AccumulateGrad]
    for x in targets:
        edge = x._grad_edge()
        g = reached.get(edge)
        if g is None:
            continue
        x._accumulate(g)
        if type(edge) is graph.AccumulateGrad and edge.post_hooks:
            _post_accumulate(edge)


# --- anomaly detection ----------------------------------------------------------------------------------------
class set_detect_anomaly:  # noqa: N801 - PyTorch's spelling
    """`torch.autograd.set_detect_anomaly(mode, check_nan=True)`: record each op's forward stack, and stop a
    backward whose rule returns nan, naming the op (also usable as a context manager)."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = tuple(graph._anomaly)
        graph._anomaly[:] = [bool(mode), bool(check_nan)]

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        graph._anomaly[:] = list(self.prev)


class detect_anomaly:  # noqa: N801
    """`with torch.autograd.detect_anomaly():` — anomaly detection inside the block only."""

    def __init__(self, check_nan: bool = True) -> None:
        import warnings

        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        self.prev = tuple(graph._anomaly)
        graph._anomaly[:] = [True, self.check_nan]
        return self

    def __exit__(self, *exc) -> None:
        graph._anomaly[:] = list(self.prev)


from engine.autograd_extra import Function, forward_ad, functional, gradcheck, gradgradcheck  # noqa: E402,F401
