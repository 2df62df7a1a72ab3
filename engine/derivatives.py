"""Every operation of the engine: its forward value and its local backward rule.

The engine's analogue of PyTorch's `derivatives.yaml`: one entry per op, written
once against `engine.xp`, so the numeric backward pass, the batched Jacobian
and the symbolic explanations all run the very same rules.

A rule receives the incoming cotangent `g`, the op's output `out`, the input
arrays and the op's attributes, and returns the cotangent for one input. `g`
may carry leading batch axes (that is how `jacobian` pushes every one-hot
cotangent through in one sweep), so rules index axes from the end. The engine
sums a returned cotangent down to its input's shape (undoing broadcasting).
"""
from __future__ import annotations

import functools
import math
import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine import xp


@dataclass(frozen=True, eq=False)
class Op:
    grad_fn: str                 # the name PyTorch 2.13 gives the backward node
    inputs: tuple[str, ...]      # PyTorch's names of the differentiable inputs
    forward: Callable
    vjp: tuple[Callable, ...]    # one rule per input: (g, out, *inputs, **attrs) -> cotangent
    formula: tuple[str, ...]     # the same rules as derivatives.yaml writes them, for explanations
    saves: tuple[str, ...] = ()  # tensors PyTorch saves; a node that saves any cannot run twice once freed
    needs: tuple[tuple[str, ...], ...] = ()  # per input: the saved names its formula reads


OPS: dict[str, Op] = {}


@functools.lru_cache(maxsize=None)
def saved_tensors(op: Op, wanted: int) -> tuple[tuple[int, ...], bool]:
    """What PyTorch saves when the inputs in bitmask `wanted` need a gradient, as its codegen does (the
    saved names their formulas mention): (positions of saved inputs, whether the result is saved)."""
    names = {name for i, needs in enumerate(op.needs) if wanted >> i & 1 for name in needs}
    return tuple(i for i, name in enumerate(op.inputs) if name in names), "result" in names


def op(key, grad_fn, inputs, forward, rules, saves=()):
    """Register an op. `rules` maps each input name to (formula text, rule function)."""
    formula = tuple(rules[name][0] for name in inputs)
    vjp = tuple(rules[name][1] for name in inputs)
    needs = tuple(tuple(s for s in saves if re.search(rf"\b{s}\b", text)) for text in formula)
    OPS[key] = Op(grad_fn, tuple(inputs), forward, vjp, formula, tuple(saves), needs)


def _reduced_count(a, out) -> int:
    return max(1, np.size(a) // max(1, np.size(out)))


def _unsqueeze(g, dims, keepdim):
    return g if keepdim else np.expand_dims(g, dims)


def _scatter(g, out, a, key):
    """A cotangent of zeros shaped like `a`, with `g` placed where `a[key]` was read."""
    grad = xp.zeros(xp.batch_shape(g, out) + a.shape, like=g)
    grad[(Ellipsis,) + key] = g
    return grad


def _scatter_add(g, out, a, key):
    grad = xp.zeros(xp.batch_shape(g, out) + a.shape, like=g)
    np.add.at(grad, (Ellipsis,) + key, g)
    return grad


def _take(a, dim, keepdim, indices):
    """The values at `indices` (kept-dim shape) along `dim`: max/min along a dim, given its argmax."""
    out = np.take_along_axis(a, indices, dim)
    return out if keepdim else np.squeeze(out, dim)


def _put_along(g, out, a, dim, keepdim, indices):
    g = _unsqueeze(g, dim, keepdim)
    grad = xp.zeros(g.shape[: g.ndim - a.ndim] + a.shape, like=g)
    np.put_along_axis(grad, np.broadcast_to(indices, g.shape), g, axis=dim)
    return grad


def _put(a, key, value):
    """A copy of `a` with `value` written at `key` (numpy's setitem, without touching `a`)."""
    out = a.copy()
    out[(Ellipsis,) + key] = value
    return out


def _mT(a):
    return np.swapaxes(a, -1, -2)


def _pow_rule(g, out, a, exponent):
    if exponent == 0:
        return g * 0
    return g * (exponent * a ** (exponent - 1))


# --- arithmetic -------------------------------------------------------------------------------
op("add", "AddBackward0", ["self", "other"], lambda a, b: a + b,
   {"self": ("grad", lambda g, out, a, b: g), "other": ("grad", lambda g, out, a, b: g)})
op("sub", "SubBackward0", ["self", "other"], lambda a, b: a - b,
   {"self": ("grad", lambda g, out, a, b: g), "other": ("-grad", lambda g, out, a, b: -g)})
op("rsub", "RsubBackward1", ["self"], lambda a, b: b - a,
   {"self": ("-grad", lambda g, out, a, b: -g)})
op("mul", "MulBackward0", ["self", "other"], lambda a, b: a * b,
   {"self": ("grad * other", lambda g, out, a, b: g * b),
    "other": ("grad * self", lambda g, out, a, b: g * a)}, saves=["self", "other"])
op("div", "DivBackward0", ["self", "other"], lambda a, b: a / b,
   {"self": ("grad / other", lambda g, out, a, b: g / b),
    "other": ("-grad * self / (other * other)", lambda g, out, a, b: g * (-a / (b * b)))},
   saves=["self", "other"])
op("neg", "NegBackward0", ["self"], lambda a: -a, {"self": ("-grad", lambda g, out, a: -g)})
op("reciprocal", "ReciprocalBackward0", ["self"], lambda a: 1 / a,
   {"self": ("-grad * result * result", lambda g, out, a: g * -(out * out))}, saves=["result"])
op("pow", "PowBackward0", ["self"], lambda a, exponent: a ** exponent,
   {"self": ("grad * exponent * self.pow(exponent - 1)", _pow_rule)}, saves=["self"])
op("pow_tensor", "PowBackward1", ["self", "exponent"], lambda a, b: a ** b,
   {"self": ("grad * exponent * self.pow(exponent - 1)", lambda g, out, a, b: g * (b * a ** (b - 1))),
    "exponent": ("grad * result * self.log()", lambda g, out, a, b: g * (out * xp.log(a)))},
   saves=["self", "exponent", "result"])
op("rpow", "PowBackward2", ["exponent"], lambda b, base: base ** b,
   {"exponent": ("grad * result * log(self)", lambda g, out, b, base: g * (out * math.log(base)))},
   saves=["exponent", "result"])

# --- elementwise functions --------------------------------------------------------------------
op("exp", "ExpBackward0", ["self"], xp.exp, {"self": ("grad * result", lambda g, out, a: g * out)},
   saves=["result"])
op("log", "LogBackward0", ["self"], xp.log, {"self": ("grad / self", lambda g, out, a: g * (1 / a))},
   saves=["self"])
op("sqrt", "SqrtBackward0", ["self"], xp.sqrt,
   {"self": ("grad / (2 * result)", lambda g, out, a: g * (0.5 / out))}, saves=["result"])
op("sin", "SinBackward0", ["self"], xp.sin,
   {"self": ("grad * self.cos()", lambda g, out, a: g * xp.cos(a))}, saves=["self"])
op("cos", "CosBackward0", ["self"], xp.cos,
   {"self": ("grad * -self.sin()", lambda g, out, a: g * -xp.sin(a))}, saves=["self"])
op("tanh", "TanhBackward0", ["self"], xp.tanh,
   {"self": ("grad * (1 - result * result)", lambda g, out, a: g * (1 - out * out))}, saves=["result"])
op("sigmoid", "SigmoidBackward0", ["self"], xp.sigmoid,
   {"self": ("grad * result * (1 - result)", lambda g, out, a: g * (out * (1 - out)))}, saves=["result"])
op("relu", "ReluBackward0", ["self"], xp.relu,
   {"self": ("grad * (result > 0)", lambda g, out, a: g * xp.greater(out, 0))}, saves=["result"])
op("abs", "AbsBackward0", ["self"], xp.abs,
   {"self": ("grad * self.sign()", lambda g, out, a: g * xp.sign(a))}, saves=["self"])
op("clamp", "ClampBackward1", ["self"], lambda a, low, high: xp.clip(a, low, high),
   {"self": ("grad * (min <= self <= max)", lambda g, out, a, low, high: g * xp.between(a, low, high))},
   saves=["self"])
op("maximum", "MaximumBackward0", ["self", "other"], xp.maximum,
   {"self": ("grad * ((self > other) + (self == other) / 2)",
             lambda g, out, a, b: g * (xp.greater(a, b) + xp.equal(a, b) / 2)),
    "other": ("grad * ((other > self) + (self == other) / 2)",
              lambda g, out, a, b: g * (xp.greater(b, a) + xp.equal(a, b) / 2))},
   saves=["self", "other"])

# --- reductions -------------------------------------------------------------------------------
op("sum", "SumBackward0", ["self"], lambda a: np.sum(a),
   {"self": ("grad.expand(self.sizes())", lambda g, out, a: xp.expand_to(g, out, a.shape))})
op("sum_dim", "SumBackward1", ["self"], lambda a, dims, keepdim: np.sum(a, axis=dims, keepdims=keepdim),
   {"self": ("grad.unsqueeze(dim).expand(self.sizes())",
             lambda g, out, a, dims, keepdim: xp.expand_to(_unsqueeze(g, dims, keepdim), a, a.shape))})
op("mean", "MeanBackward0", ["self"], lambda a: np.mean(a),
   {"self": ("grad.expand(self.sizes()) / self.numel()",
             lambda g, out, a: xp.expand_to(g, out, a.shape) / max(1, np.size(a)))})
op("mean_dim", "MeanBackward1", ["self"], lambda a, dims, keepdim: np.mean(a, axis=dims, keepdims=keepdim),
   {"self": ("grad.unsqueeze(dim).expand(self.sizes()) / N",
             lambda g, out, a, dims, keepdim:
             xp.expand_to(_unsqueeze(g, dims, keepdim), a, a.shape) / _reduced_count(a, out))})
for _key, _name, _pick in (("max", "MaxBackward1", xp.amax), ("min", "MinBackward1", xp.amin)):
    op(_key, _name, ["self"], _pick,
       {"self": ("evenly_distribute_backward(grad, self, result)",
                 lambda g, out, a: xp.expand_to(g, out, a.shape) * xp.equal(a, out)
                 / np.sum(xp.numeric(xp.equal(a, out))))},
       saves=["self", "result"])
for _key, _name in (("max_dim", "MaxBackward0"), ("min_dim", "MinBackward0")):
    op(_key, _name, ["self"], lambda a, dim, keepdim, indices: _take(a, dim, keepdim, indices),
       {"self": ("value_selecting_reduction_backward(grad, dim, indices, self.sizes(), keepdim)",
                 _put_along)},
       saves=["indices"])
op("softmax", "SoftmaxBackward0", ["self"], lambda a, dim: xp.softmax(a, dim),
   {"self": ("result * (grad - (grad * result).sum(dim, keepdim=True))",
             lambda g, out, a, dim: out * (g - np.sum(g * out, axis=dim, keepdims=True)))},
   saves=["result"])
op("log_softmax", "LogSoftmaxBackward0", ["self"], lambda a, dim: a - xp.logsumexp(a, dim),
   {"self": ("grad - result.exp() * grad.sum(dim, keepdim=True)",
             lambda g, out, a, dim: g - xp.exp(out) * np.sum(g, axis=dim, keepdims=True))},
   saves=["result"])

# --- products ---------------------------------------------------------------------------------
op("mm", "MmBackward0", ["self", "mat2"], np.matmul,
   {"self": ("grad.mm(mat2.t())", lambda g, out, a, b: g @ _mT(b)),
    "mat2": ("self.t().mm(grad)", lambda g, out, a, b: _mT(a) @ g)}, saves=["self", "mat2"])
op("mv", "MvBackward0", ["self", "vec"], np.matmul,
   {"self": ("grad.ger(vec)", lambda g, out, a, v: g[..., :, None] * v),
    "vec": ("self.t().mv(grad)", lambda g, out, a, v: g @ a)}, saves=["self", "vec"])
op("dot", "DotBackward0", ["self", "tensor"], np.matmul,
   {"self": ("grad * tensor", lambda g, out, a, b: g[..., None] * b),
    "tensor": ("grad * self", lambda g, out, a, b: g[..., None] * a)}, saves=["self", "tensor"])
op("bmm", "UnsafeViewBackward0", ["self", "other"], np.matmul,
   {"self": ("grad.matmul(other.mT)", lambda g, out, a, b: g @ _mT(b)),
    "other": ("self.mT.matmul(grad)", lambda g, out, a, b: _mT(a) @ g)}, saves=["self", "other"])

# --- shapes and indexing ----------------------------------------------------------------------
_reshape_back = ("grad.reshape(self.sizes())", lambda g, out, a, **_: g.reshape(xp.batch_shape(g, out) + a.shape))
op("view", "ViewBackward0", ["self"], lambda a, shape: a.reshape(shape), {"self": _reshape_back})
op("reshape_alias", "ReshapeAliasBackward0", ["self"], lambda a, shape: a.reshape(shape), {"self": _reshape_back})
op("unsafe_view", "UnsafeViewBackward0", ["self"], lambda a, shape: a.reshape(shape), {"self": _reshape_back})
op("unsqueeze", "UnsqueezeBackward0", ["self"], lambda a, dim: np.expand_dims(a, dim), {"self": _reshape_back})
op("squeeze", "SqueezeBackward0", ["self"], lambda a: np.squeeze(a), {"self": _reshape_back})
op("squeeze_dim", "SqueezeBackward1", ["self"], lambda a, dim: np.squeeze(a, dim), {"self": _reshape_back})
op("squeeze_matmul", "SqueezeBackward4", ["self"], lambda a, dim: np.squeeze(a, dim), {"self": _reshape_back})
op("expand", "ExpandBackward0", ["self"], lambda a, shape: np.broadcast_to(a, shape),
   {"self": ("at::sum_to(grad, self.sizes())", lambda g, out, a, shape: g)})
op("alias", "AliasBackward0", ["self"], lambda a: a, {"self": ("grad", lambda g, out, a: g)})
op("clone", "CloneBackward0", ["self"], lambda a: a.copy(), {"self": ("grad", lambda g, out, a: g)})
op("to_copy", "ToCopyBackward0", ["self"], lambda a, dtype: a if xp.symbolic(a) else a.astype(dtype),
   {"self": ("grad.to(self.dtype)", lambda g, out, a, dtype: g if xp.symbolic(g) else g.astype(a.dtype))})
op("t", "TBackward0", ["self"], lambda a: a.T, {"self": ("grad.t()", lambda g, out, a: g if a.ndim < 2 else _mT(g))})
op("transpose", "TransposeBackward0", ["self"], lambda a, dim0, dim1: np.swapaxes(a, dim0, dim1),
   {"self": ("grad.transpose(dim0, dim1)", lambda g, out, a, dim0, dim1: np.swapaxes(g, dim0, dim1))})
op("permute", "PermuteBackward0", ["self"], lambda a, dims: np.transpose(a, dims),
   {"self": ("permute_backwards(grad, dims)",
             lambda g, out, a, dims: np.moveaxis(g, [d - a.ndim for d in range(a.ndim)],
                                                 [d - a.ndim for d in dims]))})
op("select", "SelectBackward0", ["self"], lambda a, key: a[key],
   {"self": ("select_backward(grad, self.sizes(), dim, index)", lambda g, out, a, key: _scatter(g, out, a, key))})
op("slice", "SliceBackward0", ["self"], lambda a, key: a[key],
   {"self": ("slice_backward(grad, self.sizes(), dim, start, end, step)",
             lambda g, out, a, key: _scatter(g, out, a, key))})
op("copy_slices", "CopySlices", ["self", "src"], lambda a, b, key: _put(a, key, b),
   {"self": ("grad with zeros where src was written", lambda g, out, a, b, key: _put(g, key, 0)),
    "src": ("grad[key]", lambda g, out, a, b, key: g[(Ellipsis,) + key])})
op("index", "IndexBackward0", ["self"], lambda a, key: a[key],
   {"self": ("index_put(zeros_like(self), indices, grad, accumulate=True)",
             lambda g, out, a, key: _scatter_add(g, out, a, key))}, saves=["indices"])

# --- losses, norms and selections ---------------------------------------------------------------
op("log1p", "Log1PBackward0", ["self"], lambda a: xp.log(1 + a),
   {"self": ("grad / (self + 1)", lambda g, out, a: g * (1 / (a + 1)))}, saves=["self"])
op("norm", "LinalgVectorNormBackward0", ["self"], lambda a: xp.sqrt(np.sum(a * a)),
   {"self": ("grad * self / result (0 where result is 0)",
             lambda g, out, a: xp.expand_to(g, out, a.shape) * xp.divide_or_zero(a, out))},
   saves=["self", "result"])
op("prod", "ProdBackward0", ["self"], lambda a: np.prod(a),
   {"self": ("grad * result / self", lambda g, out, a: xp.expand_to(g, out, a.shape) * (out / a))},
   saves=["self", "result"])
op("var", "VarBackward0", ["self"], lambda a, correction: np.sum((a - np.mean(a)) ** 2) / (np.size(a) - correction),
   {"self": ("grad * 2 * (self - self.mean()) / (N - correction)",
             lambda g, out, a, correction: xp.expand_to(g, out, a.shape)
             * (2 * (a - np.mean(a)) / (np.size(a) - correction)))}, saves=["self"])
op("std", "StdBackward0", ["self"],
   lambda a, correction: xp.sqrt(np.sum((a - np.mean(a)) ** 2) / (np.size(a) - correction)),
   {"self": ("grad * (self - self.mean()) / ((N - correction) * result)",
             lambda g, out, a, correction: xp.expand_to(g, out, a.shape)
             * ((a - np.mean(a)) / ((np.size(a) - correction) * out)))}, saves=["self", "result"])
op("where", "WhereBackward0", ["self", "other"], lambda a, b, condition: np.where(condition, a, b),
   {"self": ("where(condition, grad, 0)", lambda g, out, a, b, condition: g * condition),
    "other": ("where(condition, 0, grad)", lambda g, out, a, b, condition: g * ~condition)},
   saves=["condition"])
op("mse_loss", "MseLossBackward0", ["self", "target"], lambda a, b: np.mean((a - b) ** 2),
   {"self": ("grad * 2 * (self - target) / N",
             lambda g, out, a, b: xp.expand_to(g, out, np.broadcast_shapes(a.shape, b.shape))
             * (2 * (a - b) / np.size(a - b))),
    "target": ("grad * -2 * (self - target) / N",
               lambda g, out, a, b: xp.expand_to(g, out, np.broadcast_shapes(a.shape, b.shape))
               * (-2 * (a - b) / np.size(a - b)))}, saves=["self", "target"])
op("bce_with_logits", "BinaryCrossEntropyWithLogitsBackward0", ["self", "target"],
   lambda a, b: np.mean(xp.log(1 + xp.exp(-xp.abs(a))) + xp.maximum(a, 0 * a) - a * b),
   {"self": ("grad * (sigmoid(self) - target) / N",
             lambda g, out, a, b: xp.expand_to(g, out, a.shape) * ((xp.sigmoid(a) - b) / np.size(a))),
    "target": ("grad * -self / N",
               lambda g, out, a, b: xp.expand_to(g, out, b.shape) * (-a / np.size(a)))}, saves=["self", "target"])
op("nll_loss", "NllLossBackward0", ["self"],
   lambda a, target: -np.mean(a[np.arange(a.shape[0]), target]),
   {"self": ("-grad / N at each target", lambda g, out, a, target: _nll_rule(g, out, a, target))},
   saves=["self", "target"])


def _nll_rule(g, out, a, target):
    onehot = xp.zeros(a.shape, like=a)
    onehot[np.arange(a.shape[0]), target] = -1 / a.shape[0]
    return xp.expand_to(g, out, a.shape) * onehot


# --- ops over a list of tensors (one rule, specialised per input position) ---------------------
_cat_offsets: list = [lambda: None, None, ()]  # (weakref to out, dim, offsets) of the last cat node swept


def _cat_rule(g, out, *arrays, dim, index):
    start = _cat_start(out, arrays, dim, index)
    key = (slice(None),) * (-dim - 1)
    return g[(Ellipsis, slice(start, start + arrays[index].shape[dim])) + key]


def _cat_start(out, arrays, dim, index) -> int:
    """Where input `index` starts in the output.  The sweep asks once per input, so the offsets are
    computed once per node (summing the sizes before each input would make a backward O(n²))."""
    if not isinstance(out, np.ndarray):
        return sum(a.shape[dim] for a in arrays[:index])
    if _cat_offsets[0]() is not out or _cat_offsets[1] != dim or len(_cat_offsets[2]) != len(arrays) + 1:
        _cat_offsets[:] = [weakref.ref(out), dim, np.cumsum([0] + [a.shape[dim] for a in arrays]).tolist()]
    return _cat_offsets[2][index]


def _stack_rule(g, out, *arrays, dim, index):
    return np.take(g, index, axis=dim)


VARIADIC = {
    "cat": ("CatBackward0", lambda *arrays, dim: np.concatenate(arrays, axis=dim), "grad.narrow(dim, offset, size)",
            _cat_rule),
    "stack": ("StackBackward0", lambda *arrays, dim: np.stack(arrays, axis=dim), "grad.select(dim, index)",
              _stack_rule),
}


def variadic(key: str, n: int) -> Op:
    """The Op of `cat`/`stack` over n tensors: the same rule, told which input it serves."""
    name = f"{key}/{n}"
    if name not in OPS:
        grad_fn, forward, formula, rule = VARIADIC[key]
        rules = {f"tensors[{i}]": (formula, _bind_index(rule, i)) for i in range(n)}
        op(name, grad_fn, list(rules), forward, rules)
    return OPS[name]


def _bind_index(rule, index):
    return lambda g, out, *arrays, **attrs: rule(g, out, *arrays, index=index, **attrs)
