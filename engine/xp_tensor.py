"""The Tensor namespace of `engine.xp`: what a derivative rule's array functions do when the rule runs on
Tensors (`create_graph=True`).

Every function here is built from recorded Tensor ops (themselves entries of `engine.ops`), so
running a rule on Tensors records the backward pass as a graph that can be differentiated again: the
same table gives first, second and higher derivatives, as PyTorch's derivatives.yaml does.
Masks, indices and other non-differentiable quantities are constants (arrays or Tensors that record
nothing).
"""
from __future__ import annotations

import numpy as np

from engine import xp
from engine.grad_mode import enable_grad  # noqa: F401 - enable_grad: graph.sweep's
from engine.graph import AccumulateGrad
from engine.methods.shape import cat as _cat
from engine.methods.shape import where as _where
from engine.ops import OPS
from engine.tensor import Tensor, _run


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


def cat(arrays, axis: int) -> Tensor:
    return _cat([a if isinstance(a, Tensor) else constant(a) for a in arrays], axis)


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


# --- what `graph.sweep` needs to run the rules on Tensors (create_graph=True) ----------------------------
def _input_tensor(array, parent):
    """An input of a node as the Tensor it was: its value, and the edge its gradient flows to."""
    if parent is None:
        return Tensor._make(array) if type(array) is np.ndarray else array
    if type(parent) is AccumulateGrad:
        return parent.variable
    t = Tensor._make(array)
    t._requires_grad, t._grad_fn = True, parent
    return t


def as_tensor(g) -> Tensor:
    return g if isinstance(g, Tensor) else Tensor._make(np.asarray(g))


def node_values(node) -> tuple:
    """(output, inputs) of a node as Tensors whose edges are the node and its parents, so a rule run on them
    records the backward pass as a graph reaching the same leaves."""
    out = Tensor._make(node.out)
    out._requires_grad, out._grad_fn = True, node
    parents, arrays = node.parents, node.arrays
    inputs = [_input_tensor(a, p) for a, p in zip(arrays, parents)] + list(arrays[len(parents):])
    return out, inputs


def fit(gi, array: np.ndarray) -> Tensor:
    """A rule's Tensor cotangent shaped and typed as the input it is for (broadcasting undone)."""
    gi = as_tensor(gi)
    if tuple(gi.shape) != array.shape:
        if gi.ndim >= array.ndim:
            gi = sum_to(gi, array.shape)
        if tuple(gi.shape) != array.shape:
            gi = gi.expand(*array.shape)
    if gi._data.dtype != array.dtype:
        gi = gi._convert(array.dtype)
    return gi


xp.use_tensor_namespace(Tensor, __import__(__name__, fromlist=["_"]))
