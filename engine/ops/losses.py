"""Loss functions with their own records: mse_loss, binary cross-entropy (with and without logits), nll_loss,
reduced as PyTorch does (and their backward functions, ops themselves for the next derivative).
"""
from __future__ import annotations

import math

import numpy as np

from engine import xp
from engine.ops.backward_ops import gather, recorded
from engine.ops.record import BROADCAST_SHAPE, BROADCASTS, PROMOTE, op


# --- losses -----------------------------------------------------------------------------------
def _reduce_loss(loss, reduction):
    if reduction == "none":
        return loss
    return np.sum(loss) if reduction == "sum" else np.mean(loss)


def _loss_back(g, out, shape, reduction):
    """The cotangent of a loss's reduction, spread over the elementwise losses."""
    if reduction == "none":
        return g
    g = xp.expand_to(g, out, shape)
    return g if reduction == "sum" else g / max(1, math.prod(shape))


_SCALAR = np.zeros(())  # a reduced loss's output: what `_loss_back` needs to know of it (it is 0-dim)


def _reduce_trailing(x, shape, reduction):
    """Reduce the trailing `shape` axes of x (batch axes kept) as a loss's reduction does."""
    if reduction == "none":
        return x
    total = xp.sum(x, axis=tuple(range(-len(shape), 0)))
    return total if reduction == "sum" else total / max(1, math.prod(shape))


_mse_backward = recorded("mse_loss_backward", lambda g, a, b, reduction: _loss_back(
    g, _SCALAR, np.broadcast_shapes(a.shape, b.shape), reduction) * (2 * (a - b)))
op("mse_loss_backward", "MseLossBackwardBackward0", ["grad_output", "self", "target"], _mse_backward,
   {"grad_output": ("mse_loss(grad * 2 * (self - target)) reduced",
                    lambda gg, y, g, a, b, reduction: _reduce_trailing(
                        gg * (2 * (a - b)), np.broadcast_shapes(a.shape, b.shape), reduction)),
    "self": ("grad * 2 * grad_output (/ N for 'mean')",
             lambda gg, y, g, a, b, reduction: gg * (2 * _loss_back(
                 g, _SCALAR, np.broadcast_shapes(a.shape, b.shape), reduction))),
    "target": ("grad * -2 * grad_output (/ N for 'mean')",
               lambda gg, y, g, a, b, reduction: gg * (-2 * _loss_back(
                   g, _SCALAR, np.broadcast_shapes(a.shape, b.shape), reduction)))})
op("mse_loss", "MseLossBackward0", ["self", "target"], lambda a, b, reduction: _reduce_loss((a - b) ** 2, reduction),
   {"self": ("mse_loss_backward(grad, self, target): grad * 2 * (self - target) (/ N for 'mean')",
             lambda g, out, a, b, reduction: _mse_backward(g, a, b, reduction=reduction)),
    "target": ("-mse_loss_backward(grad, self, target)",
               lambda g, out, a, b, reduction: -_mse_backward(g, a, b, reduction=reduction))},
   saves={"self": ["self", "target"], "target": ["self", "target"]}, dtype=PROMOTE,
   shape=BROADCAST_SHAPE, check=BROADCASTS)


def _bce_logits(a, b, reduction):
    return _reduce_loss(xp.log(1 + xp.exp(-xp.abs(a))) + xp.relu(a) - a * b, reduction)


op("bce_with_logits", "BinaryCrossEntropyWithLogitsBackward0", ["self", "target"], _bce_logits,
   {"self": ("grad * (sigmoid(self) - target) (/ N for 'mean')",
             lambda g, out, a, b, reduction: _loss_back(g, out, a.shape, reduction) * (xp.sigmoid(a) - b)),
    "target": ("grad * -self (/ N for 'mean')",
               lambda g, out, a, b, reduction: _loss_back(g, out, a.shape, reduction) * -a)},
   saves={"self": ["self", "target"], "target": ["self"]}, shape=BROADCAST_SHAPE, dtype=PROMOTE)

_BCE_EPSILON = 1e-12


def _clamped_log(x):
    """log clamped below at -100, as binary_cross_entropy does."""
    if xp.symbolic(x):
        return xp.log(x)
    return np.maximum(xp.log(x), -100)


def _bce(a, b, reduction):
    return _reduce_loss(-(b * _clamped_log(a) + (1 - b) * _clamped_log(1 - a)), reduction)


def _bce_self_rule(g, out, a, b, reduction):
    denominator = (1 - a) * a
    if not xp.symbolic(a):
        denominator = xp.clip(denominator, _BCE_EPSILON, None)
    return _loss_back(g, out, a.shape, reduction) * ((a - b) / denominator)


op("bce", "BinaryCrossEntropyBackward0", ["self", "target"], _bce,
   {"self": ("grad * (self - target) / max((1 - self) * self, EPSILON) (/ N for 'mean')", _bce_self_rule),
    "target": ("grad * (log(1 - self) - log(self)) (/ N for 'mean')",
               lambda g, out, a, b, reduction: _loss_back(g, out, a.shape, reduction) * -(xp.log(a) - xp.log(1 - a)))},
   saves={"self": ["self", "target"], "target": ["self"]}, shape=BROADCAST_SHAPE)


def _nll(a, target, reduction, ignore_index):
    kept = target != ignore_index
    safe = np.where(kept, target, 0)
    if a.ndim == 1:
        picked = xp.select(kept, -a[safe])   # not `* kept`: a symbolic replay's entries take no numpy bool
    else:
        picked = xp.select(kept, -np.take_along_axis(a, np.expand_dims(safe, 1), 1).squeeze(1))
    if reduction == "mean":
        return np.sum(picked) / np.sum(kept)
    return _reduce_loss(picked, reduction)


def _nll_rule(g, out, a, target, reduction, ignore_index):
    """-grad at each target class (ignored targets get none), / the number of kept targets for 'mean'."""
    return _nll_backward(g, shape=a.shape, target=target, reduction=reduction, ignore_index=ignore_index)


def _nll_backward_array(g, shape, target, reduction, ignore_index):
    kept = target != ignore_index
    safe = np.where(kept, target, 0)
    out = _SCALAR if reduction != "none" else target
    batch = xp.batch_shape(g, out)
    if reduction == "none":
        per = xp.select(kept, -g)
    else:
        per = xp.select(kept, -xp.expand_to(g, out, target.shape))
        if reduction == "mean":
            per = per / np.sum(kept)
    a = np.empty(shape, dtype=np.bool_)
    grad = xp.zeros(batch + a.shape, like=per)
    if a.ndim == 1:
        grad[..., safe] = per
    else:
        axis = 1 - a.ndim
        index = np.expand_dims(safe, 1)
        np.put_along_axis(grad, np.broadcast_to(index, batch + index.shape), np.expand_dims(per, axis), axis=axis)
    return grad


def _nll_double_rule(gg, y, g, shape, target, reduction, ignore_index):
    """The gradient of nll_loss_backward for its incoming grad: -gg at each target, reduced."""
    kept = target != ignore_index
    safe = np.where(kept, target, 0)
    if len(shape) == 1:
        picked = gg[(Ellipsis, int(safe))] if np.ndim(safe) == 0 else gg[(Ellipsis, safe)]
    else:
        picked = xp.squeeze(gather(gg, 1 - len(shape), np.expand_dims(safe, 1)), 1 - len(shape))
    picked = -picked * kept
    if reduction == "none":
        return picked
    total = xp.sum(picked, axis=tuple(range(-np.ndim(target), 0))) if np.ndim(target) else picked
    return total / np.sum(kept) if reduction == "mean" else total


_nll_backward = recorded("nll_loss_backward", _nll_backward_array)
op("nll_loss_backward", "NllLossBackwardBackward0", ["grad_output"], _nll_backward_array,
   {"grad_output": ("-(grad at each target), reduced as the loss", _nll_double_rule)})
op("nll_loss2d", "NllLoss2DBackward0", ["self"], _nll,
   {"self": ("-grad at each target (/ N for 'mean')", _nll_rule)}, saves=["self", "target"])
op("nll_loss", "NllLossBackward0", ["self"], _nll,
   {"self": ("-grad at each target (/ N for 'mean')", _nll_rule)}, saves=["self", "target"])
