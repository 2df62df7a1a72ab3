"""Reductions: sum, mean, prod, max/min (whole and along a dim), softmax and log_softmax, logsumexp, var, std,
norm.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from engine import xp
from engine.ops.backward_ops import log_softmax_backward, put_along_array, recorded, softmax_backward
from engine.ops.record import FLOATING, INTEGRAL_TO_LONG, names, op


def _reduced_count(a, out) -> int:
    return max(1, xp.size(a) // max(1, xp.size(out)))


def _unsqueeze(g, dims, keepdim):
    return g if keepdim else xp.expand_dims(g, dims)


def _take(a, dim, keepdim, indices):
    """The values at `indices` (kept-dim shape) along `dim`: max/min along a dim, given its argmax."""
    if np.ndim(a) == 0:
        return a.copy()
    out = np.take_along_axis(a, indices, dim)
    return out if keepdim else np.squeeze(out, dim)


def _put_along(g, out, a, dim, keepdim, indices):
    if a.ndim == 0:
        return g
    return _value_selecting_backward(_unsqueeze(g, dim, keepdim), shape=a.shape, dim=dim, indices=indices)


_value_selecting_backward = recorded("value_selecting_backward", put_along_array)


# --- reductions -------------------------------------------------------------------------------
def _count(a, dims) -> int:
    """How many elements each reduction over `dims` (None: all) combines."""
    if dims is None:
        return xp.size(a)
    return int(np.prod([a.shape[d] for d in dims]))


def _expand_back(g, out, a, dims, keepdim):
    """The cotangent of a reduction over `dims` (None: all) broadcast back over the input's shape."""
    if dims is not None and not keepdim:
        g = xp.expand_dims(g, dims)
        out = np.expand_dims(xp.numeric(out), dims)
    return xp.expand_to(g, out, a.shape)


def _kept(x, dims, keepdim):
    """A reduction's result with the reduced dims kept as size 1 (to broadcast against the input)."""
    return x if dims is None or keepdim or xp.ndim(x) == 0 and not dims else xp.expand_dims(x, dims)


op("sum", "SumBackward0", ["self"], lambda a: np.sum(a),
   {"self": ("grad.expand(self.sizes())", lambda g, out, a: xp.expand_to(g, out, a.shape))},
   dtype=INTEGRAL_TO_LONG,
   names=names("sum"))
op("sum_dim", "SumBackward1", ["self"], lambda a, dims, keepdim: np.sum(a, axis=dims, keepdims=keepdim),
   {"self": ("grad.unsqueeze(dim).expand(self.sizes())",
             lambda g, out, a, dims, keepdim: xp.expand_to(_unsqueeze(g, dims, keepdim), a, a.shape))},
   dtype=INTEGRAL_TO_LONG)
op("mean", "MeanBackward0", ["self"], lambda a: np.mean(a),
   {"self": ("grad.expand(self.sizes()) / self.numel()",
             lambda g, out, a: xp.expand_to(g, out, a.shape) / max(1, xp.size(a)))},
   names=names("mean"))
op("mean_dim", "MeanBackward1", ["self"], lambda a, dims, keepdim: np.mean(a, axis=dims, keepdims=keepdim),
   {"self": ("grad.unsqueeze(dim).expand(self.sizes()) / N",
             lambda g, out, a, dims, keepdim:
             xp.expand_to(_unsqueeze(g, dims, keepdim), a, a.shape) / _reduced_count(a, out))})
for _key, _name, _pick in (("max", "MaxBackward1", xp.amax), ("min", "MinBackward1", xp.amin)):
    op(_key, _name, ["self"], _pick,
       {"self": ("evenly_distribute_backward(grad, self, result)",
                 lambda g, out, a: xp.select(xp.equal(a, out, nan_equal=True), xp.expand_to(g, out, a.shape)
                                             / np.sum(xp.equal(a, out, nan_equal=True)).item()))},
       saves=["self", "result"], names=names(_key))
for _key, _name in (("max_dim", "MaxBackward0"), ("min_dim", "MinBackward0")):
    op(_key, _name, ["self"], lambda a, dim, keepdim, indices: _take(a, dim, keepdim, indices),
       {"self": ("value_selecting_reduction_backward(grad, dim, indices, self.sizes(), keepdim)",
                 _put_along)},
       saves=["indices"])
def _amax_back(g, out, a, dims, keepdim):
    """The gradient spread evenly over the elements equal to each slice's extremum (ties share it)."""
    mask = xp.equal(a, xp.numeric(_kept(out, dims, keepdim)))  # a nan extremum equals nothing: nan, as PyTorch
    count = np.sum(mask, axis=dims, keepdims=True) if dims else np.asarray(mask, dtype=np.int64)  # (an array at 0-d too)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _expand_back(g, out, a, dims, keepdim) / count * np.asarray(mask, dtype=xp.numeric(a).dtype)  # PyTorch's order


for _key, _name, _pick in (("amax", "AmaxBackward0", np.amax), ("amin", "AminBackward0", np.amin)):
    op(_key, _name, ["self"], lambda a, dims, keepdim, pick=_pick: pick(a, axis=dims, keepdims=keepdim),
       {"self": ("scale_grad_by_count(restore_reduced_dims(grad, dim, keepdim), "
                 "restore_reduced_dims(result, dim, keepdim) == self, dim)", _amax_back)},
       saves=["self", "result"], names=names(_key))
for _key, _name in (("sort", "SortBackward0"), ("topk", "TopkBackward0")):  # values picked at `indices` along dim
    op(_key, _name, ["self"], lambda a, dim, indices: np.take_along_axis(a, indices, dim) if np.ndim(a) else a.copy(),
       {"self": ("value_selecting_reduction_backward(grad, dim, indices, self.sizes(), true)",
                 lambda g, out, a, dim, indices: g if np.ndim(a) == 0 else
                 _value_selecting_backward(g, shape=a.shape, dim=dim, indices=indices))},
       saves=["indices"], dtype=lambda arrays, attrs: arrays[0].dtype, names=names(_key))
op("softmax", "SoftmaxBackward0", ["self"], lambda a, dim: xp.softmax(a, dim),
   {"self": ("result * (grad - (grad * result).sum(dim, keepdim=True))",
             lambda g, out, a, dim: softmax_backward(g, out, dim))},
   saves=["result"],
   names=names("softmax"))
op("log_softmax", "LogSoftmaxBackward0", ["self"], lambda a, dim: a - xp.logsumexp(a, dim),
   {"self": ("grad - result.exp() * grad.sum(dim, keepdim=True)",
             lambda g, out, a, dim: log_softmax_backward(g, out, dim))},
   saves=["result"],
   names=names("log_softmax"))
op("logsumexp", "LogsumexpBackward0", ["self"],
   lambda a, dims, keepdim: _logsumexp(a, dims, keepdim),
   {"self": ("grad * (self - result).exp() (result and grad unsqueezed over dim)",
             lambda g, out, a, dims, keepdim: _expand_back(g, out, a, dims, keepdim)
             * xp.exp(a - _kept(out, dims, keepdim)))}, saves=["self", "result"], dtype=FLOATING,
   names=names("logsumexp"))


def _logsumexp(a, dims, keepdim):
    if not xp.symbolic(a) and a.dtype.kind != "f":
        a = a.astype(np.float32)
    out = xp.logsumexp(a, dims) if np.size(a) else np.log(np.sum(xp.exp(a), axis=dims, keepdims=True))
    return out if keepdim else np.squeeze(out, dims)


def _prod_others(a, axis):
    """For each element, the product of the other elements along `axis`: exclusive products from both
    ends, so a zero gives finite gradients (PyTorch's prod_backward handles zeros the same way)."""
    if xp.is_tensor(a):
        return xp.tensors.prod_others(a, axis)
    if a.shape[axis] == 0:
        return a.copy()
    ones = np.ones_like(np.take(a, [0], axis=axis))

    def exclusive(x):
        return np.cumprod(np.concatenate([ones, np.delete(x, -1, axis=axis)], axis=axis), axis=axis)

    return exclusive(a) * np.flip(exclusive(np.flip(a, axis)), axis)


def _prod_rule(g, out, a):
    """grad times the product of the other elements; zeros_like(self) where two or more elements are 0 and the
    backward records no graph (PyTorch's prod_backward: +0 there, whatever the gradient's sign)."""
    g = xp.expand_to(g, out, a.shape)
    if not xp.is_tensor(g) and not xp.symbolic(a) and np.count_nonzero(a == 0) > 1:
        return xp.zeros(np.shape(g), g)
    return g * _prod_others(a.reshape(-1), 0).reshape(a.shape)


op("prod", "ProdBackward0", ["self"], lambda a: np.prod(a),
   {"self": ("grad * (product of the other elements)", _prod_rule)},
   saves=["self", "result"], dtype=INTEGRAL_TO_LONG,
   names=names("prod"))
op("prod_dim", "ProdBackward1", ["self"], lambda a, dim, keepdim: np.prod(a, axis=dim, keepdims=keepdim),
   {"self": ("grad.unsqueeze(dim) * (product of the other elements along dim)",
             lambda g, out, a, dim, keepdim: _expand_back(g, out, a, None if dim is None else (dim,), keepdim)
             * (1 if dim is None else _prod_others(a, dim)))},
   saves=["self", "result"], dtype=INTEGRAL_TO_LONG)


def _var(a, dims, correction, keepdim):
    centered = a - np.mean(a, axis=dims, keepdims=True)
    return np.sum(centered * centered, axis=dims, keepdims=keepdim) / max(0, _count(a, dims) - correction)


def _var_rule(g, out, a, dims, correction, keepdim):
    centered = a - xp.mean(a, axis=dims, keepdims=True)
    return _expand_back(g, out, a, dims, keepdim) * (2 * centered / (_count(a, dims) - correction))


def _std_rule(g, out, a, dims, correction, keepdim):
    g = xp.divide_or_zero(g, 2 * out)  # PyTorch: (grad / (2 * result)).masked_fill_(result == 0, 0)
    return _var_rule(g, out, a, dims, correction, keepdim)


def _warn_dof(name: str):
    """The check of var and std: PyTorch warns (and gives nan or inf) when no degrees of freedom are left."""
    def check(arrays, attrs):
        if _count(arrays[0], attrs["dims"]) - attrs["correction"] <= 0:
            warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                          "reduction factor (input numel divided by output numel).", UserWarning, stacklevel=4)
    return check


op("var", "VarBackward0", ["self"], _var,
   {"self": ("grad * 2 * (self - self.mean(dim, True)) / (N - correction)", _var_rule)}, saves=["self"],
   names=names("var"), check=_warn_dof("var"))
op("std", "StdBackward0", ["self"], lambda a, dims, correction, keepdim: xp.sqrt(_var(a, dims, correction, keepdim)),
   {"self": ("var_backward(grad / (2 * result), ...) (0 where result is 0)", _std_rule)}, saves=["self", "result"],
   names=names("std"), check=_warn_dof("std"))


def _norm(a, p, dims, keepdim):
    if p == 2:
        return xp.sqrt(np.sum(a * a, axis=dims, keepdims=keepdim))
    if p == 0:
        return np.sum(xp.numeric(a) != 0, axis=dims, keepdims=keepdim).astype(a.dtype)
    if p == math.inf:
        return xp.amax(xp.abs(a), axis=dims, keepdims=keepdim) if np.size(a) else \
            np.max(np.abs(a), axis=dims, keepdims=keepdim, initial=0)
    if p == -math.inf:
        return xp.amin(xp.abs(a), axis=dims, keepdims=keepdim)
    if p == 1:
        return np.sum(xp.abs(a), axis=dims, keepdims=keepdim)
    return np.sum(xp.abs(a) ** p, axis=dims, keepdims=keepdim) ** (1 / p)


def _norm_rule(g, out, a, p, dims, keepdim):
    """PyTorch's norm_backward, case by case in p."""
    g = _expand_back(g, out, a, dims, keepdim)
    norm = _kept(out, dims, keepdim)
    if p == 0:
        return None  # PyTorch returns an undefined gradient: the input's .grad stays None
    if p == 1:
        return g * xp.sign(a)
    if p == 2:
        return g * xp.divide_or_zero(a, norm)
    if abs(p) == math.inf:
        mask = xp.equal(xp.abs(a), norm)
        return xp.sign(a) * (g / np.sum(mask, axis=dims, keepdims=True)) * xp.factor(mask, a)  # as PyTorch: a product
    if p < 1:
        scaled = xp.sign(a) * xp.where(xp.numeric(a) == 0, 0, xp.abs(a) ** (p - 1))
        return scaled * g * norm ** (1 - p)
    scaled = xp.sign(a) * xp.abs(a) ** (p - 1) if p < 2 else a * xp.abs(a) ** (p - 2)
    return scaled * xp.divide_or_zero(g, norm ** (p - 1))


op("norm", "LinalgVectorNormBackward0", ["self"], _norm,
   {"self": ("norm_backward(grad, self, p, result, dim, keepdim) (none for p = 0)", _norm_rule)}, saves=["self", "result"],
   names=names("norm"))
