"""The Tensor namespace of `engine.xp`: what a derivative rule's array functions do when the rule runs on
Tensors (`create_graph=True`).

Every function here is built from recorded Tensor ops (themselves entries of `engine.derivatives`), so
running a rule on Tensors records the backward pass as a graph that can be differentiated again: the
same table gives first, second and higher derivatives, as PyTorch's derivatives.yaml does.
Masks, indices and other non-differentiable quantities are constants (arrays or Tensors that record
nothing).
"""
from __future__ import annotations

import numpy as np

from engine import xp
from engine.tensor import Tensor, _run, where as _where
from engine.derivatives import OPS


def constant(array: np.ndarray) -> Tensor:
    return Tensor._make(np.asarray(array))


def apply(name: str, arrays: tuple, attrs: dict) -> Tensor:
    """Op `name` of the table, recorded (its Tensor operands are the graph's edges)."""
    return _run(OPS[name], tuple(arrays), attrs)


def _normalize(axis, ndim: int) -> tuple:
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    return tuple(sorted(a % ndim for a in axes))


def where(condition, a, b):
    if not isinstance(a, Tensor):
        like = b
        a = Tensor._make(np.asarray(a, dtype=like._data.dtype))
    if not isinstance(b, Tensor):
        b = Tensor._make(np.asarray(b, dtype=a._data.dtype))
    return _where(Tensor._make(np.asarray(condition, dtype=bool)), a, b)


def sum(a: Tensor, axis=None, keepdims=False):  # noqa: A001 - numpy's name
    if axis is None:
        out = a.sum()
        return out.reshape((1,) * a.ndim) if keepdims else out
    if isinstance(axis, (tuple, list)) and not axis:
        return a
    return a.sum(dim=tuple(axis) if isinstance(axis, (tuple, list)) else axis, keepdim=keepdims)


def mean(a: Tensor, axis=None, keepdims=False):
    if axis is None:
        out = a.mean()
        return out.reshape((1,) * a.ndim) if keepdims else out
    return a.mean(dim=tuple(axis) if isinstance(axis, (tuple, list)) else axis, keepdim=keepdims)


def expand_dims(a: Tensor, axis):
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    ndim = a.ndim + len(axes)
    for d in sorted(x % ndim for x in axes):
        a = a.unsqueeze(d)
    return a


def squeeze(a: Tensor, axis):
    for d in reversed(_normalize(axis, a.ndim)):
        a = a.squeeze(d)
    return a


def moveaxis(a: Tensor, source, destination):
    source = source if isinstance(source, (tuple, list)) else [source]
    destination = destination if isinstance(destination, (tuple, list)) else [destination]
    n = a.ndim
    source, destination = [s % n for s in source], [d % n for d in destination]
    order = [d for d in range(n) if d not in source]
    for dst, src in sorted(zip(destination, source)):
        order.insert(dst, src)
    return a.permute(*order)


def take(a: Tensor, index: int, axis: int):
    key = (slice(None),) * (axis % a.ndim) + (index,)
    return a[key]


def expand_to(g: Tensor, out, shape):
    """`xp.expand_to` for Tensors: unsqueeze the reduced dims, then expand (no batch axes here)."""
    missing = len(shape) - xp.ndim(out)
    if missing:
        g = g.reshape((1,) * missing + tuple(g.shape))
    return g if tuple(g.shape) == tuple(shape) else g.expand(*shape)


def sum_to(g: Tensor, shape):
    """Sum a cotangent down to an input's shape (undo broadcasting), as at::sum_to."""
    lead = g.ndim - len(shape)
    if lead:
        g = g.sum(dim=tuple(range(lead)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    if axes:
        g = g.sum(dim=axes, keepdim=True)
    return g


def divide_or_zero(a, b):
    """a / b with 0 where b == 0, differentiable where b != 0 (PyTorch's masked_fill)."""
    zero = np.asarray(xp.numeric(b)) == 0
    if not zero.any():
        return a / b
    safe = where(zero, 1, b) if isinstance(b, Tensor) else np.where(zero, 1, b)
    quotient = a / safe
    return where(np.broadcast_to(zero, quotient.shape), 0, quotient)


def prod_others(a: Tensor, axis: int):
    """For each element, the product of the others along `axis`, as a differentiable expression: the
    product divided by the element (exact without zeros; with zeros only first derivatives are given)."""
    if (a._data == 0).any():
        raise NotImplementedError("the double backward of prod over a tensor containing zeros is not "
                                  "supported by this engine")
    return a.prod(axis, keepdim=True) / a


# --- the recorded backward pass ---------------------------------------------------------------------------
def _input_tensor(array, parent):
    """An input of a node as the Tensor it was: its value, and the edge its gradient flows to."""
    if parent is None:
        return Tensor._make(array) if type(array) is np.ndarray else array
    if type(parent).__name__ == "AccumulateGrad":
        return parent.variable
    t = Tensor._make(array)
    t._requires_grad, t._grad_fn = True, parent
    return t


def _as_tensor(g):
    return g if isinstance(g, Tensor) else Tensor._make(np.asarray(g))


def create_graph_sweep(order, grads, retain_graph, capture, check_node, run_hooks) -> dict:
    """`graph.sweep` with create_graph=True: cotangents are Tensors, every rule of the table runs on
    Tensors with recording on, so the gradients come back with a graph of their own."""
    import sys

    from engine import graph
    tensor_module = sys.modules["engine.tensor"]

    previous_mode = tensor_module._grad_enabled
    tensor_module._grad_enabled = True
    anomaly = graph.anomaly_enabled()
    leaves = {}
    try:
        for node in order:
            g = grads.pop(node, None)
            if g is None:
                continue
            g = _as_tensor(g)
            if node.hooks is not None:
                g = run_hooks(node, g)
            if type(node) is graph.AccumulateGrad:
                leaves[node] = g
                continue
            if capture is not None and node in capture:
                leaves[node] = g
            check_node(node)
            if node.retained is not None:
                node.retained._accumulate(g)
            out = Tensor._make(node.out)
            out._requires_grad, out._grad_fn = True, node
            parents = node.parents
            arrays = node.arrays
            inputs = [_input_tensor(a, p) for a, p in zip(arrays, parents)] + list(arrays[len(parents):])
            vjp, attrs = node.op.vjp, node.attrs
            for i, parent in enumerate(parents):
                if parent is None:
                    continue
                gi = vjp[i](g, out, *inputs, **attrs)
                if gi is None:
                    continue
                gi = _as_tensor(gi)
                array = arrays[i]
                if tuple(gi.shape) != array.shape:
                    if gi.ndim >= array.ndim:
                        gi = sum_to(gi, array.shape)
                    if tuple(gi.shape) != array.shape:
                        gi = gi.expand(*array.shape)
                if gi._data.dtype != array.dtype:
                    gi = gi._convert(array.dtype)
                if anomaly and np.isnan(gi._data).any():
                    graph.anomaly_error(node, i)
                previous = grads.get(parent)
                grads[parent] = gi if previous is None else previous + gi
            if not retain_graph:
                node.freed = True
    finally:
        tensor_module._grad_enabled = previous_mode
    return leaves


xp.use_tensor_namespace(Tensor, __import__(__name__, fromlist=["_"]))
