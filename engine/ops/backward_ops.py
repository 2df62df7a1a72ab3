"""Backward functions that are ops themselves (PyTorch's tanh_backward, select_backward…): their own rules
give the next derivative; with the scatter kernels the other families' rules use.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from engine import xp
from engine.ops.record import op


def recorded(name: str, numeric: Callable) -> Callable:
    """A backward function that is itself an op of the table (PyTorch's tanh_backward, select_backward…):
    computed by `numeric` on arrays, recorded as op `name` on Tensors (create_graph=True), where its own
    rules give the next derivative."""
    def fn(*args, **attrs):
        if type(args[0]) is np.ndarray or not xp.is_tensor(args[0]):
            return numeric(*args, **attrs) if attrs else numeric(*args)  # (`**{}` would make a dict)
        return xp.tensors.apply(name, args, attrs)
    return fn


def _key_drops(key) -> int:
    """How many dims a basic key (ints and slices) removes."""
    return sum(1 for k in key if not isinstance(k, slice))


def scatter_array(g, shape, key):
    """Zeros of `shape` (batch axes of g first) with `g` placed where `[key]` was read."""
    grad = np.zeros(g.shape[: g.ndim - (len(shape) - _key_drops(key))] + tuple(shape), dtype=g.dtype)
    grad[(Ellipsis,) + key] = g
    return grad


def scatter_add_array(g, shape, key):
    """The same for an advanced key, adding where indices repeat."""
    read = np.empty(shape, dtype=np.bool_)[key].ndim
    grad = np.zeros(g.shape[: g.ndim - read] + tuple(shape), dtype=g.dtype)
    np.add.at(grad, (Ellipsis,) + key, g)
    return grad


def put_along_array(g, shape, dim, indices):
    grad = np.zeros(g.shape[: g.ndim - len(shape)] + tuple(shape), dtype=g.dtype)
    np.put_along_axis(grad, np.broadcast_to(indices, g.shape), g, axis=dim)
    return grad


# --- backward functions that are ops themselves (their rules give the next derivative) ---------------------
tanh_backward = recorded("tanh_backward", lambda g, out: g * xp.one_minus(out * out))
sigmoid_backward = recorded("sigmoid_backward", lambda g, out: g * (out * xp.one_minus(out)))
# PyTorch selects (0 where result <= 0), it does not multiply by a mask: a negative gradient gives +0 there, not -0
threshold_backward = recorded("threshold_backward", lambda g, out: np.where(xp.numeric(out) <= 0, 0, g))
softmax_backward = recorded("softmax_backward_data",
                              lambda g, out, dim: out * (g - xp.sum(g * out, axis=dim, keepdims=True)))
log_softmax_backward = recorded("log_softmax_backward_data",
                                  lambda g, out, dim: g - xp.exp(out) * xp.sum(g, axis=dim, keepdims=True))


def gather(g, dim, indices):
    """`g.gather(dim, indices)` (batch axes of g first)."""
    if xp.is_tensor(g):
        grids = list(np.ogrid[tuple(slice(n) for n in indices.shape)])
        grids[dim] = indices
        return g[tuple(grids)]
    return np.take_along_axis(g, np.broadcast_to(indices, g.shape[: g.ndim - indices.ndim] + indices.shape), dim)


op("tanh_backward", "TanhBackwardBackward0", ["grad_output", "output"], tanh_backward,
   {"grad_output": ("tanh_backward(grad, output)", lambda gg, y, g, out: tanh_backward(gg, out)),
    "output": ("-2 * grad * grad_output * output", lambda gg, y, g, out: gg * (-2 * g * out))})
op("sigmoid_backward", "SigmoidBackwardBackward0", ["grad_output", "output"], sigmoid_backward,
   {"grad_output": ("sigmoid_backward(grad, output)", lambda gg, y, g, out: sigmoid_backward(gg, out)),
    "output": ("grad * grad_output * (1 - 2 * output)", lambda gg, y, g, out: gg * (g * (1 - 2 * out)))})
op("threshold_backward", "ThresholdBackwardBackward0", ["grad_output", "self"], threshold_backward,
   {"grad_output": ("threshold_backward(grad, self, 0)", lambda gg, y, g, out: threshold_backward(gg, out)),
    "self": ("zeros_like(grad)", lambda gg, y, g, out: None)})
op("softmax_backward_data", "SoftmaxBackwardDataBackward0", ["grad_output", "output"], softmax_backward,
   {"grad_output": ("softmax_backward_data(grad, output, dim)",
                    lambda gg, y, g, out, dim: softmax_backward(gg, out, dim)),
    "output": ("grad * (grad_output - (grad_output * output).sum(dim)) - grad_output * (grad * output).sum(dim)",
               lambda gg, y, g, out, dim: gg * (g - xp.sum(g * out, axis=dim, keepdims=True))
               - g * xp.sum(gg * out, axis=dim, keepdims=True))})
op("log_softmax_backward_data", "LogSoftmaxBackwardDataBackward0", ["grad_output", "output"], log_softmax_backward,
   {"grad_output": ("grad - (grad * output.exp()).sum(dim)",
                    lambda gg, y, g, out, dim: gg - xp.sum(gg * xp.exp(out), axis=dim, keepdims=True)),
    "output": ("-grad * output.exp() * grad_output.sum(dim)",
               lambda gg, y, g, out, dim: -gg * xp.exp(out) * xp.sum(g, axis=dim, keepdims=True))})
for _key, _name in (("select_backward", "SelectBackwardBackward0"), ("slice_backward", "SliceBackwardBackward0"),
                    ("unbind_backward", "StackBackward0"), ("index_backward", "IndexPutBackward0")):
    op(_key, _name, ["grad_output"], scatter_add_array if _key == "index_backward" else scatter_array,
       {"grad_output": ("grad[key]", lambda gg, y, g, shape, key: gg[(Ellipsis,) + key])})
op("value_selecting_backward", "ValueSelectingReductionBackwardBackward0", ["grad_output"], put_along_array,
   {"grad_output": ("grad.gather(dim, indices)", lambda gg, y, g, shape, dim, indices: gather(gg, dim, indices))})
