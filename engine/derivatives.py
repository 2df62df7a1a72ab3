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
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine import xp
from engine.dtypes import common_dtype, result_type


@dataclass(frozen=True, eq=False)
class Op:
    grad_fn: str                 # the name PyTorch 2.13 gives the backward node
    inputs: tuple[str, ...]      # PyTorch's names of the differentiable inputs
    forward: Callable
    vjp: tuple[Callable, ...]    # one rule per input: (g, out, *inputs, **attrs) -> cotangent
    formula: tuple[str, ...]     # the same rules as derivatives.yaml writes them, for explanations
    saves: tuple[str, ...] = ()  # what PyTorch saves; a node that saves any cannot run twice once freed
    needs: tuple[tuple[str, ...], ...] = ()  # per input: what its rule reads of the saved (declared, see `op`)
    # (arrays, attrs) -> the dtype PyTorch gives the result; None: the forward's own dtype
    result_dtype: Callable | None = None
    view: bool = False           # the result is a view of input 0 (in-place writes through it reach it)
    custom: bool = False         # a custom autograd.Function: its rules are the learner's code, not formulas
    names: Names | None = None   # how learners reach it (Tensor methods, torch functions, in-place variants)
    # (arrays, attrs) -> (result shape, multiply-adds): what dispatch shows the size guard before the forward
    # runs; None for an op whose result is never larger than an input
    shape: Callable | None = None
    check: Callable | None = None  # (arrays, attrs) -> None, raising PyTorch's error for operands it refuses
    # the non-tensor arguments PyTorch saves (`grad_fn._saved_exponent`), by their attribute names, where the
    # attribute holds the learner's value as given (dims do not: rules count them from the end); they stay
    # when the graph is freed, and never stop a second backward
    saved_args: tuple[str, ...] = ()


@dataclass(frozen=True)
class Names:
    """How learners reach an op, as PyTorch's native_functions.yaml `variants` say: `Tensor` methods, `torch`
    functions, in-place methods (`x.exp_()`) and in-place functions (`torch.exp_`). `engine.registry` attaches
    them; a method the `Tensor` class spells out itself is the op's argument parser (`x.sum(dim, keepdim)`).
    `number_first` is what `torch.f(2, t)` means: "" refused as PyTorch does, "op" the op with the number as a
    wrapped operand (`torch.sub(2, t)` records SubBackward0), or the Tensor's reflected operator (`__radd__`)."""
    methods: tuple[str, ...] = ()
    functions: tuple[str, ...] = ()
    inplace: tuple[str, ...] = ()
    inplace_functions: tuple[str, ...] = ()
    number_first: str = ""


def names(*methods: str, function: bool = True, inplace: bool = False, inplace_function: bool = False,
          number_first: str = "") -> Names:
    """The names of an op reached as `x.m(...)` for each of `methods` (aliases after the first), as `torch.m`
    when `function`, as `x.m_()` when `inplace`, and as `torch.m_` when `inplace_function`."""
    return Names(methods, methods if function else (), tuple(m + "_" for m in methods) if inplace else (),
                 tuple(m + "_" for m in methods) if inplace_function else (), number_first)


def functions(*names: str) -> Names:
    """The names of an op reached only as a `torch` function (`torch.cat`, `torch.where`)."""
    return Names(functions=names)


# Functions over tensors that are not one op record of their own, declared here beside the ops so that every
# name of the torch surface comes from this module: composites that run other ops' records (`square` is
# `pow(2)`, `flatten` a view, `matmul` picks mm, mv, dot or a batched product, `cat` and `stack` make their
# record per number of inputs) and queries that record nothing (`numel`, `equal`, `detach`).
COMPOSITES: tuple[Names, ...] = (
    names("square", inplace=True, inplace_function=True), names("flatten"), names("matmul"), functions("cat"),
    functions("stack"), names("view_as", "reshape_as", "expand_as", function=False), names("argmax"),
    names("argmin"), names("numel"), names("allclose"), names("equal"), names("is_floating_point"),
    names("detach", inplace=True), Names(inplace=("fill_",)),
)


OPS: dict[str, Op] = {}


@functools.lru_cache(maxsize=None)
def saved_tensors(op: Op, wanted: int) -> tuple[tuple[int, ...], bool]:
    """What PyTorch saves when the inputs in bitmask `wanted` need a gradient, as its codegen does (what
    their rules are declared to read): (positions of saved inputs, whether the result is saved)."""
    names = {name for i, needs in enumerate(op.needs) if wanted >> i & 1 for name in needs}
    return tuple(i for i, name in enumerate(op.inputs) if name in names), "result" in names


def op(key, grad_fn, inputs, forward, rules, saves=(), dtype=None, view=False, names=None, shape=None,
       check=None, saved_args=()):
    """Register an op. `rules` maps each input name to (formula text, rule function); `saves` declares what
    PyTorch saves for the rule of each input — {input: [names]}, or, for an op with one differentiable input,
    the list of names — among the inputs' names, "result", and non-tensor arguments such as "indices" (only
    tensors are version-checked); `dtype` is how the result's dtype follows from the inputs (PROMOTE,
    FLOATING, INTEGRAL_TO_LONG, or a function); `names`, `shape`, `check` and `saved_args` as `Op` says."""
    formula = tuple(rules[name][0] for name in inputs)
    vjp = tuple(rules[name][1] for name in inputs)
    if isinstance(saves, dict):
        assert set(saves) <= set(inputs), key
        needs = tuple(tuple(saves.get(name, ())) for name in inputs)
    else:
        assert len(inputs) == 1 or not saves, f"{key}: declare what each input's rule saves"
        needs = tuple(tuple(saves) for _ in inputs)
    declared = tuple(dict.fromkeys(name for names in needs for name in names))
    OPS[key] = Op(grad_fn, tuple(inputs), forward, vjp, formula, declared, needs, dtype, view, names=names,
                  shape=shape, check=check, saved_args=tuple(saved_args))


# How a result's dtype follows from the operands (PyTorch's type promotion, `engine.dtypes.result_type`):
def PROMOTE(arrays, attrs):  # noqa: N802 - used like a constant
    """The common dtype of the tensor and number operands (add, mul, where…)."""
    return common_dtype(arrays)


def FLOATING(arrays, attrs):  # noqa: N802
    """Like PROMOTE, but integers give float32 (true division, exp, sqrt…)."""
    if len(arrays) == 1 and type(arrays[0]) is np.ndarray and arrays[0].dtype.kind == "f":  # exp, sin… of a float tensor
        return arrays[0].dtype
    found = common_dtype(arrays)
    return found if found.kind == "f" else _FLOAT32


_INT64 = np.dtype(np.int64)
_FLOAT32 = np.dtype(np.float32)


def INTEGRAL_TO_LONG(arrays, attrs):  # noqa: N802
    """sum and prod: integer and bool tensors give int64, floats keep their dtype."""
    return arrays[0].dtype if arrays[0].dtype.kind == "f" else _INT64


def not_implemented(name: str):
    """The rule of an op PyTorch has no derivative for (its grad_fn is `NotImplemented`)."""
    def rule(g, out, *arrays, **attrs):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
    return rule


def broadcast_shapes(sa: tuple, sb: tuple) -> tuple:
    """The shape two operands broadcast to, or PyTorch's error naming the first dim that does not match."""
    for i in range(1, min(len(sa), len(sb)) + 1):
        if sa[-i] != sb[-i] and sa[-i] != 1 and sb[-i] != 1:
            raise RuntimeError(f"The size of tensor a ({sa[-i]}) must match the size of tensor b ({sb[-i]}) "
                               f"at non-singleton dimension {max(len(sa), len(sb)) - i}")
    return np.broadcast_shapes(sa, sb)


def BROADCASTS(arrays, attrs):  # noqa: N802 - used like a constant
    """The check of an elementwise op of two operands (a number operand broadcasts to anything)."""
    a, b = arrays[0], arrays[1]
    if type(b) is np.ndarray and type(a) is np.ndarray and a.shape != b.shape:
        broadcast_shapes(a.shape, b.shape)


def BROADCAST_SHAPE(arrays, attrs):  # noqa: N802
    """The shape function of an elementwise op: its operands' broadcast shape."""
    return np.broadcast_shapes(*(np.shape(a) for a in arrays)), 0


def PRODUCT_SHAPE(arrays, attrs):  # noqa: N802
    """A matrix product's result shape (dot, mv, mm, bmm, broadcast batches) and its multiply-adds."""
    a, b = np.shape(arrays[-2]), np.shape(arrays[-1])
    shape = np.broadcast_shapes(a[:-2], b[:-2]) + a[-2:-1] + (b[-1:] if len(b) > 1 else ())
    return shape, math.prod(shape) * a[-1]


def _mask_shape(arrays, attrs):
    """masked_fill's check and shape: the mask broadcast against self (PyTorch names the mask tensor a)."""
    return broadcast_shapes(attrs["mask"].shape, arrays[0].shape), 0


def _refuse_bool(kernel: str):
    def check(arrays, attrs):
        if arrays[0].dtype == np.bool_:
            raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    return check


def _reduced_count(a, out) -> int:
    return max(1, xp.size(a) // max(1, xp.size(out)))


def _unsqueeze(g, dims, keepdim):
    return g if keepdim else xp.expand_dims(g, dims)


def _recorded(name: str, numeric: Callable) -> Callable:
    """A backward function that is itself an op of the table (PyTorch's tanh_backward, select_backward…):
    computed by `numeric` on arrays, recorded as op `name` on Tensors (create_graph=True), where its own
    rules give the next derivative."""
    def fn(*args, **attrs):
        if type(args[0]) is np.ndarray or not xp.is_tensor(args[0]):
            return numeric(*args, **attrs)
        return xp.tensors.apply(name, args, attrs)
    return fn


def _key_drops(key) -> int:
    """How many dims a basic key (ints and slices) removes."""
    return sum(1 for k in key if not isinstance(k, slice))


def _scatter_array(g, shape, key):
    """Zeros of `shape` (batch axes of g first) with `g` placed where `[key]` was read."""
    grad = np.zeros(g.shape[: g.ndim - (len(shape) - _key_drops(key))] + tuple(shape), dtype=g.dtype)
    grad[(Ellipsis,) + key] = g
    return grad


def _scatter_add_array(g, shape, key):
    """The same for an advanced key, adding where indices repeat."""
    read = np.empty(shape, dtype=np.bool_)[key].ndim
    grad = np.zeros(g.shape[: g.ndim - read] + tuple(shape), dtype=g.dtype)
    np.add.at(grad, (Ellipsis,) + key, g)
    return grad


_select_backward = _recorded("select_backward", _scatter_array)
_slice_backward = _recorded("slice_backward", _scatter_array)
_unbind_backward = _recorded("unbind_backward", _scatter_array)
_index_backward = _recorded("index_backward", _scatter_add_array)


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


def _put_along_array(g, shape, dim, indices):
    grad = np.zeros(g.shape[: g.ndim - len(shape)] + tuple(shape), dtype=g.dtype)
    np.put_along_axis(grad, np.broadcast_to(indices, g.shape), g, axis=dim)
    return grad


_value_selecting_backward = _recorded("value_selecting_backward", _put_along_array)


def _put(a, key, value):
    """A copy of `a` with `value` written at `key` (numpy's setitem, without touching `a`)."""
    out = a.copy()
    out[(Ellipsis,) + key] = value
    return out


def _copy_slices(a, b, index):
    """A copy of `a` with `b` written at the flat positions `index` (a region, laid out as `b` broadcasts)."""
    out = a.copy()
    out.reshape(-1)[index.reshape(-1)] = np.broadcast_to(b, index.shape).reshape(-1)
    return out


def _region_mask(index, shape):
    mask = np.zeros(math.prod(shape), dtype=bool)
    mask[index.reshape(-1)] = True
    return mask.reshape(shape)


def _take_flat(g, index, shape):
    """The elements of `g` (batch axes first, then `shape`) at the flat positions `index`."""
    batch = tuple(g.shape[: len(g.shape) - len(shape)])
    return g.reshape(batch + (-1,))[(Ellipsis, index)]


def _scatter_flat_array(g, shape, index):
    """Zeros of `shape` (batch axes of g first) with g added at the flat positions `index`."""
    batch = g.shape[: g.ndim - index.ndim]
    grad = np.zeros(batch + (math.prod(shape),), dtype=g.dtype)
    np.add.at(grad, (Ellipsis, index), g)
    return grad.reshape(batch + tuple(shape))


_as_strided_backward = _recorded("as_strided_backward", _scatter_flat_array)


def _expand(a, shape):
    """`np.broadcast_to`, writable as PyTorch's expanded tensors are (fill_ writes through; elementwise
    in-place ops refuse them: `tensor._check_overlap`)."""
    out = np.broadcast_to(a, shape)
    if a.dtype != object and a.flags.writeable:
        out = np.lib.stride_tricks.as_strided(a, out.shape, out.strides)
    return out


def _mT(a):
    return xp.swapaxes(a, -1, -2)


def _put_zero(g, key):
    """`g` with zeros at `key` (numpy's setitem on a copy; a masked `where` for Tensors)."""
    if xp.is_tensor(g):
        mask = np.zeros(g.shape, dtype=bool)
        mask[(Ellipsis,) + key] = True
        return xp.where(mask, 0, g)
    return _put(g, key, 0)


def _pow_self_rule(g, out, a, b):
    """d a**b / d a, 0 where the exponent is 0 (PyTorch's pow_backward_self), for a number or tensor b."""
    if np.ndim(b) == 0 and not xp.symbolic(b) and not xp.is_tensor(b):
        return g * 0 if b == 0 else g * (b * a ** (b - 1))
    return xp.where(xp.numeric(b) == 0, 0, g * (b * a ** (b - 1)))


def _pow_exponent_rule(g, out, a, b):
    """d a**b / d b = result * log(a), 0 where a == 0 and b >= 0 (PyTorch's pow_backward_exponent)."""
    mask = (xp.numeric(a) == 0) & (xp.numeric(b) >= 0)
    log_a = xp.log(xp.where(mask, 1, a))
    return xp.where(mask, 0, g * (out * log_a))


def _pow_dtype(arrays, attrs):
    return result_type(arrays[0], attrs["exponent"])


def _clamp_dtype(arrays, attrs):
    return result_type(arrays[0], attrs["low"], attrs["high"])


def _bool_arith(symbol: str, message: str):
    def forward(a, b):
        if getattr(a, "dtype", None) == np.bool_ and getattr(b, "dtype", np.bool_) == np.bool_:
            raise RuntimeError(message)
        return a - b if symbol == "-" else b - a
    return forward


_BOOL_SUB = ("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
             "`logical_xor()` operator instead.")
_BOOL_SUB_SCALAR = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
                    "invert a mask, use the `~` or `logical_not()` operator instead.")
_BOOL_NEG = ("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, "
             "use the `~` or `logical_not()` operator instead.")


def _neg(a):
    if a.dtype == np.bool_:
        raise RuntimeError(_BOOL_NEG)
    return -a


def _floor_divide(a, b):
    _check_integer_division(a, b)
    return np.floor_divide(a, b)


def _remainder(a, b):
    _check_integer_division(a, b)
    return np.remainder(a, b)


def _check_integer_division(a, b):
    """Integer // and % by zero: PyTorch raises where numpy gives 0."""
    if np.result_type(a, b).kind in "iub" and not xp.symbolic(a) and np.any(np.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")


# --- backward functions that are ops themselves (their rules give the next derivative) ---------------------
_tanh_backward = _recorded("tanh_backward", lambda g, out: g * (1 - out * out))
_sigmoid_backward = _recorded("sigmoid_backward", lambda g, out: g * (out * (1 - out)))
# PyTorch selects (0 where result <= 0), it does not multiply by a mask: a negative gradient gives +0 there, not -0
_threshold_backward = _recorded("threshold_backward", lambda g, out: np.where(xp.numeric(out) <= 0, 0, g))
_softmax_backward = _recorded("softmax_backward_data",
                              lambda g, out, dim: out * (g - xp.sum(g * out, axis=dim, keepdims=True)))
_log_softmax_backward = _recorded("log_softmax_backward_data",
                                  lambda g, out, dim: g - xp.exp(out) * xp.sum(g, axis=dim, keepdims=True))


def _gather(g, dim, indices):
    """`g.gather(dim, indices)` (batch axes of g first)."""
    if xp.is_tensor(g):
        grids = list(np.ogrid[tuple(slice(n) for n in indices.shape)])
        grids[dim] = indices
        return g[tuple(grids)]
    return np.take_along_axis(g, np.broadcast_to(indices, g.shape[: g.ndim - indices.ndim] + indices.shape), dim)


op("tanh_backward", "TanhBackwardBackward0", ["grad_output", "output"], _tanh_backward,
   {"grad_output": ("tanh_backward(grad, output)", lambda gg, y, g, out: _tanh_backward(gg, out)),
    "output": ("-2 * grad * grad_output * output", lambda gg, y, g, out: gg * (-2 * g * out))})
op("sigmoid_backward", "SigmoidBackwardBackward0", ["grad_output", "output"], _sigmoid_backward,
   {"grad_output": ("sigmoid_backward(grad, output)", lambda gg, y, g, out: _sigmoid_backward(gg, out)),
    "output": ("grad * grad_output * (1 - 2 * output)", lambda gg, y, g, out: gg * (g * (1 - 2 * out)))})
op("threshold_backward", "ThresholdBackwardBackward0", ["grad_output", "self"], _threshold_backward,
   {"grad_output": ("threshold_backward(grad, self, 0)", lambda gg, y, g, out: _threshold_backward(gg, out)),
    "self": ("zeros_like(grad)", lambda gg, y, g, out: None)})
op("softmax_backward_data", "SoftmaxBackwardDataBackward0", ["grad_output", "output"], _softmax_backward,
   {"grad_output": ("softmax_backward_data(grad, output, dim)",
                    lambda gg, y, g, out, dim: _softmax_backward(gg, out, dim)),
    "output": ("grad * (grad_output - (grad_output * output).sum(dim)) - grad_output * (grad * output).sum(dim)",
               lambda gg, y, g, out, dim: gg * (g - xp.sum(g * out, axis=dim, keepdims=True))
               - g * xp.sum(gg * out, axis=dim, keepdims=True))})
op("log_softmax_backward_data", "LogSoftmaxBackwardDataBackward0", ["grad_output", "output"], _log_softmax_backward,
   {"grad_output": ("grad - (grad * output.exp()).sum(dim)",
                    lambda gg, y, g, out, dim: gg - xp.sum(gg * xp.exp(out), axis=dim, keepdims=True)),
    "output": ("-grad * output.exp() * grad_output.sum(dim)",
               lambda gg, y, g, out, dim: -gg * xp.exp(out) * xp.sum(g, axis=dim, keepdims=True))})
for _key, _name in (("select_backward", "SelectBackwardBackward0"), ("slice_backward", "SliceBackwardBackward0"),
                    ("unbind_backward", "StackBackward0"), ("index_backward", "IndexPutBackward0")):
    op(_key, _name, ["grad_output"], _scatter_add_array if _key == "index_backward" else _scatter_array,
       {"grad_output": ("grad[key]", lambda gg, y, g, shape, key: gg[(Ellipsis,) + key])})
op("value_selecting_backward", "ValueSelectingReductionBackwardBackward0", ["grad_output"], _put_along_array,
   {"grad_output": ("grad.gather(dim, indices)", lambda gg, y, g, shape, dim, indices: _gather(gg, dim, indices))})


# --- arithmetic -------------------------------------------------------------------------------
op("add", "AddBackward0", ["self", "other"], lambda a, b: a + b,
   {"self": ("grad", lambda g, out, a, b: g), "other": ("grad", lambda g, out, a, b: g)}, dtype=PROMOTE,
   names=names("add", inplace=True, number_first="__radd__"), shape=BROADCAST_SHAPE, check=BROADCASTS)
op("sub", "SubBackward0", ["self", "other"], _bool_arith("-", _BOOL_SUB),
   {"self": ("grad", lambda g, out, a, b: g), "other": ("-grad", lambda g, out, a, b: -g)}, dtype=PROMOTE,
   names=names("sub", inplace=True, number_first="op"), shape=BROADCAST_SHAPE, check=BROADCASTS)
op("rsub", "RsubBackward1", ["self"], _bool_arith("r-", _BOOL_SUB_SCALAR),
   {"self": ("-grad", lambda g, out, a, b: -g)}, dtype=PROMOTE)
op("mul", "MulBackward0", ["self", "other"], lambda a, b: a * b,
   {"self": ("grad * other", lambda g, out, a, b: g * b),
    "other": ("grad * self", lambda g, out, a, b: g * a)}, saves={"self": ["other"], "other": ["self"]}, dtype=PROMOTE,
   names=names("mul", inplace=True, number_first="__rmul__"), shape=BROADCAST_SHAPE, check=BROADCASTS)
op("div", "DivBackward0", ["self", "other"], lambda a, b: a / b,
   {"self": ("grad / other", lambda g, out, a, b: g / b),
    "other": ("-grad * self / (other * other)", lambda g, out, a, b: g * (-a / (b * b)))},
   saves={"self": ["other"], "other": ["self", "other"]}, dtype=FLOATING,
   names=names("div", inplace=True, number_first="op"), shape=BROADCAST_SHAPE, check=BROADCASTS)
op("div_scalar", "DivBackward1", ["self"], lambda a, other: a / other,
   {"self": ("grad / other", lambda g, out, a, other: g / other)}, dtype=FLOATING)
op("floor_divide", "NotImplemented", ["self", "other"], _floor_divide,
   {"self": ("not differentiable", not_implemented("floor_divide")),
    "other": ("not differentiable", not_implemented("floor_divide"))}, dtype=PROMOTE,
   names=names("floor_divide", inplace=True, number_first="__rfloordiv__"), shape=BROADCAST_SHAPE, check=BROADCASTS)
op("rfloor_divide", "NotImplemented", ["self"], lambda b, a: _floor_divide(a, b),
   {"self": ("not differentiable", not_implemented("floor_divide"))}, dtype=PROMOTE)
op("floor_divide_", "NotImplemented", ["self", "other"], _floor_divide,
   {"self": ("not differentiable", not_implemented("floor_divide_")),
    "other": ("not differentiable", not_implemented("floor_divide_"))}, dtype=PROMOTE,
   shape=BROADCAST_SHAPE, check=BROADCASTS)
op("remainder", "RemainderBackward0", ["self"], _remainder,
   {"self": ("grad", lambda g, out, a, b: g)}, dtype=PROMOTE,
   names=names("remainder", inplace=True, number_first="__rmod__"))
op("remainder_tensor", "RemainderBackward1", ["self", "other"], _remainder,
   {"self": ("grad", lambda g, out, a, b: g),
    "other": ("-grad * self.div(other, rounding_mode='floor')",
              lambda g, out, a, b: -g * np.floor_divide(xp.numeric(a), xp.numeric(b)))}, saves={"other": ["self", "other"]}, dtype=PROMOTE,
   shape=BROADCAST_SHAPE, check=BROADCASTS)
op("rremainder", "NotImplemented", ["self"], lambda b, a: _remainder(a, b),
   {"self": ("not differentiable", not_implemented("remainder"))}, dtype=PROMOTE)
op("neg", "NegBackward0", ["self"], _neg, {"self": ("-grad", lambda g, out, a: -g)},
   names=names("neg", inplace=True, inplace_function=True))
op("reciprocal", "ReciprocalBackward0", ["self"], lambda a: 1 / a,
   {"self": ("-grad * result * result", lambda g, out, a: g * -(out * out))}, saves=["result"], dtype=FLOATING,
   names=names("reciprocal", inplace=True))
op("pow", "PowBackward0", ["self"], lambda a, exponent: a ** exponent,
   {"self": ("grad * exponent * self.pow(exponent - 1), 0 where exponent == 0",
             lambda g, out, a, exponent: _pow_self_rule(g, out, a, exponent))}, saves=["self"], dtype=_pow_dtype,
   saved_args=["exponent"], names=names("pow", inplace=True, number_first="__rpow__"))
op("pow_tensor", "PowBackward1", ["self", "exponent"], lambda a, b: a ** b,
   {"self": ("grad * exponent * self.pow(exponent - 1), 0 where exponent == 0", _pow_self_rule),
    "exponent": ("grad * result * self.log(), 0 where self == 0 and exponent >= 0", _pow_exponent_rule)},
   saves={"self": ["self", "exponent"], "exponent": ["self", "exponent", "result"]}, dtype=PROMOTE,
   shape=BROADCAST_SHAPE, check=BROADCASTS)
op("rpow", "PowBackward2", ["exponent"], lambda b, base: base ** b,
   {"exponent": ("grad * result * log(self), 0 where self == 0 and exponent >= 0",
                 lambda g, out, b, base: _pow_exponent_rule(g, out, base, b))},
   saves=["exponent", "result"], dtype=PROMOTE)

# --- unary ------------------------------------------------------------------------------------
op("exp", "ExpBackward0", ["self"], xp.exp, {"self": ("grad * result", lambda g, out, a: g * out)},
   saves=["result"], dtype=FLOATING,
   names=names("exp", inplace=True, inplace_function=True))
op("log", "LogBackward0", ["self"], xp.log, {"self": ("grad / self", lambda g, out, a: g / a)},
   saves=["self"], dtype=FLOATING,
   names=names("log", inplace=True))
op("sqrt", "SqrtBackward0", ["self"], xp.sqrt,
   {"self": ("grad / (2 * result)", lambda g, out, a: g * (0.5 / out))}, saves=["result"], dtype=FLOATING,
   names=names("sqrt", inplace=True, inplace_function=True))
op("sin", "SinBackward0", ["self"], xp.sin,
   {"self": ("grad * self.cos()", lambda g, out, a: g * xp.cos(a))}, saves=["self"], dtype=FLOATING,
   names=names("sin", inplace=True))
op("cos", "CosBackward0", ["self"], xp.cos,
   {"self": ("grad * -self.sin()", lambda g, out, a: g * -xp.sin(a))}, saves=["self"], dtype=FLOATING,
   names=names("cos", inplace=True))
op("tanh", "TanhBackward0", ["self"], xp.tanh,
   {"self": ("tanh_backward(grad, result): grad * (1 - result * result)",
             lambda g, out, a: _tanh_backward(g, out))}, saves=["result"],
   dtype=FLOATING,
   names=names("tanh", inplace=True, inplace_function=True))
op("sigmoid", "SigmoidBackward0", ["self"], xp.sigmoid,
   {"self": ("sigmoid_backward(grad, result): grad * result * (1 - result)",
             lambda g, out, a: _sigmoid_backward(g, out))}, saves=["result"],
   dtype=FLOATING,
   names=names("sigmoid", inplace=True, inplace_function=True))
op("relu", "ReluBackward0", ["self"], xp.relu,
   {"self": ("threshold_backward(grad, result, 0): 0 where result <= 0",
             lambda g, out, a: _threshold_backward(g, out))}, saves=["result"],
   names=names("relu", inplace=True, inplace_function=True))
op("abs", "AbsBackward0", ["self"], xp.abs,
   {"self": ("grad * self.sign()", lambda g, out, a: g * xp.sign(a))}, saves=["self"],
   names=names("abs", inplace=True, inplace_function=True), check=_refuse_bool("abs_cpu"))
op("sign", "SignBackward0", ["self"], lambda a: xp.sign(a) if a.dtype != np.bool_ else a.copy(),
   {"self": ("zeros_like(grad)", lambda g, out, a: g * 0)},
   names=names("sign", inplace=True))
op("clamp_min", "ClampMinBackward0", ["self"], lambda a, low: xp.clip(a, low, None),
   {"self": ("where(self >= min, grad, 0)", lambda g, out, a, low: g * xp.between(a, low, None))},
   saves=["self"], dtype=lambda arrays, attrs: result_type(arrays[0], attrs["low"]),
   names=names("clamp_min", inplace=True))
op("clamp_max", "ClampMaxBackward0", ["self"], lambda a, high: xp.clip(a, None, high),
   {"self": ("where(self <= max, grad, 0)", lambda g, out, a, high: g * xp.between(a, None, high))},
   saves=["self"], dtype=lambda arrays, attrs: result_type(arrays[0], attrs["high"]),
   names=names("clamp_max", inplace=True))
op("zero", "ZeroBackward0", ["self"], lambda a: a * 0, {"self": ("zeros_like(grad)", lambda g, out, a: g * 0)},
   names=Names(inplace=("zero_",)))
op("clamp", "ClampBackward1", ["self"], lambda a, low, high: xp.clip(a, low, high),
   {"self": ("grad * (min <= self <= max)", lambda g, out, a, low, high: g * xp.between(a, low, high))},
   saves=["self"], dtype=_clamp_dtype,
   names=names("clamp", "clip", inplace=True))
op("maximum", "MaximumBackward0", ["self", "other"], xp.maximum,
   {"self": ("grad, halved where self == other, 0 where self < other",
             lambda g, out, a, b: g * (1 - xp.greater(b, a) - xp.equal(a, b) / 2)),
    "other": ("grad, halved where self == other, 0 where self > other",
              lambda g, out, a, b: g * (1 - xp.greater(a, b) - xp.equal(a, b) / 2))},
   saves={"self": ["self", "other"], "other": ["self", "other"]}, dtype=PROMOTE,
   names=names("maximum"), shape=BROADCAST_SHAPE, check=BROADCASTS)
op("minimum", "MinimumBackward0", ["self", "other"], xp.minimum,
   {"self": ("grad, halved where self == other, 0 where self > other",
             lambda g, out, a, b: g * (1 - xp.greater(a, b) - xp.equal(a, b) / 2)),
    "other": ("grad, halved where self == other, 0 where self < other",
              lambda g, out, a, b: g * (1 - xp.greater(b, a) - xp.equal(a, b) / 2))},
   saves={"self": ["self", "other"], "other": ["self", "other"]}, dtype=PROMOTE,
   names=names("minimum"), shape=BROADCAST_SHAPE, check=BROADCASTS)
def _atan2_recip(a, b):
    """1 / (self² + other²), 0 where that is infinite: PyTorch's atan2_backward gives 0, not nan, at the origin."""
    with np.errstate(divide="ignore"):
        r = 1 / (a * a + b * b)
    return xp.where(np.isinf(xp.numeric(r)), 0, r)


op("atan2", "Atan2Backward0", ["self", "other"], xp.atan2,
   {"self": ("grad * other * recip, recip = 1 / (self² + other²) and 0 where infinite",
             lambda g, out, a, b: g * b * _atan2_recip(a, b)),
    "other": ("grad * -self * recip, recip = 1 / (self² + other²) and 0 where infinite",
              lambda g, out, a, b: g * -a * _atan2_recip(a, b))},
   saves={"self": ["self", "other"], "other": ["self", "other"]}, dtype=FLOATING,
   names=names("atan2", inplace=True), shape=BROADCAST_SHAPE, check=BROADCASTS)
op("log1p", "Log1PBackward0", ["self"], lambda a: xp.log(1 + a),
   {"self": ("grad / (self + 1)", lambda g, out, a: g * (1 / (a + 1)))}, saves=["self"], dtype=FLOATING,
   names=names("log1p", inplace=True))


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
                 lambda g, out, a: xp.expand_to(g, out, a.shape) * xp.equal(a, out, nan_equal=True)
                 / np.sum(xp.numeric(xp.equal(a, out, nan_equal=True))).item())},
       saves=["self", "result"], names=names(_key))
for _key, _name in (("max_dim", "MaxBackward0"), ("min_dim", "MinBackward0")):
    op(_key, _name, ["self"], lambda a, dim, keepdim, indices: _take(a, dim, keepdim, indices),
       {"self": ("value_selecting_reduction_backward(grad, dim, indices, self.sizes(), keepdim)",
                 _put_along)},
       saves=["indices"])
op("softmax", "SoftmaxBackward0", ["self"], lambda a, dim: xp.softmax(a, dim),
   {"self": ("result * (grad - (grad * result).sum(dim, keepdim=True))",
             lambda g, out, a, dim: _softmax_backward(g, out, dim))},
   saves=["result"],
   names=names("softmax"))
op("log_softmax", "LogSoftmaxBackward0", ["self"], lambda a, dim: a - xp.logsumexp(a, dim),
   {"self": ("grad - result.exp() * grad.sum(dim, keepdim=True)",
             lambda g, out, a, dim: _log_softmax_backward(g, out, dim))},
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


op("prod", "ProdBackward0", ["self"], lambda a: np.prod(a),
   {"self": ("grad * (product of the other elements)",
             lambda g, out, a: xp.expand_to(g, out, a.shape) * _prod_others(a.reshape(-1), 0).reshape(a.shape))},
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


op("var", "VarBackward0", ["self"], _var,
   {"self": ("grad * 2 * (self - self.mean(dim, True)) / (N - correction)", _var_rule)}, saves=["self"],
   names=names("var"))
op("std", "StdBackward0", ["self"], lambda a, dims, correction, keepdim: xp.sqrt(_var(a, dims, correction, keepdim)),
   {"self": ("var_backward(grad / (2 * result), ...) (0 where result is 0)", _std_rule)}, saves=["self", "result"],
   names=names("std"))


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
        return xp.sign(a) * (g / np.sum(xp.numeric(mask), axis=dims, keepdims=True)) * mask
    if p < 1:
        scaled = xp.sign(a) * xp.where(xp.numeric(a) == 0, 0, xp.abs(a) ** (p - 1))
        return scaled * g * norm ** (1 - p)
    scaled = xp.sign(a) * xp.abs(a) ** (p - 1) if p < 2 else a * xp.abs(a) ** (p - 2)
    return scaled * xp.divide_or_zero(g, norm ** (p - 1))


op("norm", "LinalgVectorNormBackward0", ["self"], _norm,
   {"self": ("norm_backward(grad, self, p, result, dim, keepdim) (none for p = 0)", _norm_rule)}, saves=["self", "result"],
   names=names("norm"))

# --- products ---------------------------------------------------------------------------------
op("mm", "MmBackward0", ["self", "mat2"], np.matmul,
   {"self": ("grad.mm(mat2.t())", lambda g, out, a, b: g @ _mT(b)),
    "mat2": ("self.t().mm(grad)", lambda g, out, a, b: _mT(a) @ g)}, saves={"self": ["mat2"], "mat2": ["self"]},
   shape=PRODUCT_SHAPE, names=names("mm"))
def _addmm(s, a, b, beta, alpha):
    """beta * self + alpha * (mat1 @ mat2); with beta == 0 self is not read (its nan and inf do not show)."""
    product = a @ b if alpha == 1 else (a @ b) * alpha
    return product if beta == 0 else product + (s if beta == 1 else s * beta)


def _scaled(g, factor):
    return g if factor == 1 else g * factor


op("addmm", "AddmmBackward0", ["self", "mat1", "mat2"], _addmm,
   {"self": ("maybe_multiply(grad, beta)", lambda g, out, s, a, b, beta, alpha: _scaled(g, beta)),
    "mat1": ("mm_mat1_backward(grad, mat2, alpha): grad.mm(mat2.t()) * alpha",
             lambda g, out, s, a, b, beta, alpha: _scaled(g @ _mT(b), alpha)),
    "mat2": ("mm_mat2_backward(grad, mat1, alpha): mat1.t().mm(grad) * alpha",
             lambda g, out, s, a, b, beta, alpha: _scaled(_mT(a) @ g, alpha))},
   saves={"mat1": ["mat2"], "mat2": ["mat1"]}, dtype=PROMOTE,
   shape=PRODUCT_SHAPE, saved_args=["alpha", "beta"], names=names("addmm"))
op("mv", "MvBackward0", ["self", "vec"], np.matmul,
   {"self": ("grad.ger(vec)", lambda g, out, a, v: xp.expand_dims(g, -1) * v),
    "vec": ("self.t().mv(grad)", lambda g, out, a, v: g @ a)}, saves={"self": ["vec"], "vec": ["self"]},
   shape=PRODUCT_SHAPE, names=names("mv"))
op("dot", "DotBackward0", ["self", "tensor"], np.matmul,
   {"self": ("grad * tensor", lambda g, out, a, b: xp.expand_dims(g, -1) * b),
    "tensor": ("grad * self", lambda g, out, a, b: xp.expand_dims(g, -1) * a)}, saves={"self": ["tensor"], "tensor": ["self"]},
   shape=PRODUCT_SHAPE, names=names("dot"))
op("bmm3", "BmmBackward0", ["self", "mat2"], np.matmul,
   {"self": ("grad.bmm(mat2.transpose(1, 2))", lambda g, out, a, b: g @ _mT(b)),
    "mat2": ("self.transpose(1, 2).bmm(grad)", lambda g, out, a, b: _mT(a) @ g)}, saves={"self": ["mat2"], "mat2": ["self"]},
   shape=PRODUCT_SHAPE, names=names("bmm"))

# --- shapes and indexing ----------------------------------------------------------------------
_reshape_back = ("grad.reshape(self.sizes())", lambda g, out, a, **_: g.reshape(xp.batch_shape(g, out) + a.shape))
op("view", "ViewBackward0", ["self"], lambda a, shape: a.reshape(shape), {"self": _reshape_back}, view=True,
   names=names("view", function=False))
op("reshape_alias", "ReshapeAliasBackward0", ["self"], lambda a, shape: a.reshape(shape), {"self": _reshape_back},
   view=True,
   names=names("reshape"))
op("unsafe_view", "UnsafeViewBackward0", ["self"], lambda a, shape: a.reshape(shape), {"self": _reshape_back})
op("unsqueeze", "UnsqueezeBackward0", ["self"], lambda a, dim: np.expand_dims(a, dim), {"self": _reshape_back},
   view=True,
   names=names("unsqueeze"))
op("squeeze", "SqueezeBackward0", ["self"], lambda a: np.squeeze(a), {"self": _reshape_back}, view=True,
   names=names("squeeze"))
op("squeeze_dim", "SqueezeBackward1", ["self"], lambda a, dim: np.squeeze(a, dim) if a.ndim and a.shape[dim] == 1 else a,
   {"self": _reshape_back},
   view=True)
op("squeeze_matmul", "SqueezeBackward4", ["self"], lambda a, dim: np.squeeze(a, dim), {"self": _reshape_back})
op("expand", "ExpandBackward0", ["self"], _expand,
   {"self": ("at::sum_to(grad, self.sizes())", lambda g, out, a, shape: g)}, view=True,
   names=names("expand", function=False), shape=lambda arrays, attrs: (attrs["shape"], 0))
op("alias", "AliasBackward0", ["self"], lambda a: a, {"self": ("grad", lambda g, out, a: g)}, view=True)
op("clone", "CloneBackward0", ["self"], lambda a: a.copy(), {"self": ("grad", lambda g, out, a: g)},
   names=names("clone"))
op("to_copy", "ToCopyBackward0", ["self"], lambda a, dtype: a if xp.symbolic(a) else a.astype(dtype),
   {"self": ("grad.to(self.dtype)", lambda g, out, a, dtype: g if xp.symbolic(g) else xp.astype(g, a.dtype))})
op("t", "TBackward0", ["self"], lambda a: a.T, {"self": ("grad.t()", lambda g, out, a: g if np.ndim(a) < 2 else _mT(g))},
   view=True,
   names=names("t"))
op("transpose", "TransposeBackward0", ["self"], lambda a, dim0, dim1: np.swapaxes(a, dim0, dim1),
   {"self": ("grad.transpose(dim0, dim1)", lambda g, out, a, dim0, dim1: xp.swapaxes(g, dim0, dim1))}, view=True,
   names=names("transpose"))
op("permute", "PermuteBackward0", ["self"], lambda a, dims: np.transpose(a, dims),
   {"self": ("permute_backwards(grad, dims)",
             lambda g, out, a, dims: xp.moveaxis(g, [d - a.ndim for d in range(a.ndim)],
                                                 [d - a.ndim for d in dims]))}, view=True,
   names=names("permute"))
op("flip", "FlipBackward0", ["self"], lambda a, dims: np.flip(a, dims) if dims else a.copy(),
   {"self": ("grad.flip(dims)", lambda g, out, a, dims: xp.flip(g, dims) if dims else g)},
   names=names("flip"))
op("unbind", "UnbindBackward0", ["self"], lambda a, key: a[key],
   {"self": ("unbind_backward(grads, dim)", lambda g, out, a, key: _unbind_backward(g, shape=a.shape, key=key))},
   view=True)
op("select", "SelectBackward0", ["self"], lambda a, key: a[key],
   {"self": ("select_backward(grad, self.sizes(), dim, index)",
             lambda g, out, a, key: _select_backward(g, shape=a.shape, key=key))},
   view=True)
op("slice", "SliceBackward0", ["self"], lambda a, key: a[key],
   {"self": ("slice_backward(grad, self.sizes(), dim, start, end, step)",
             lambda g, out, a, key: _slice_backward(g, shape=a.shape, key=key))}, view=True)
op("copy_slices", "CopySlices", ["self", "src"], _copy_slices,
   {"self": ("grad with zeros where src was written",
             lambda g, out, a, b, index: xp.where(_region_mask(index, np.shape(a)), 0, g)),
    "src": ("grad at the written elements", lambda g, out, a, b, index: _take_flat(g, index, np.shape(a)))})
op("as_strided", "AsStridedBackward0", ["self"], lambda a, index: np.reshape(a, -1)[index],
   {"self": ("as_strided_backward(grad, …): grad added at the viewed elements",
             lambda g, out, a, index: _as_strided_backward(g, shape=np.shape(a), index=index))})
op("as_strided_backward", "AsStridedBackwardBackward0", ["grad_output"], _scatter_flat_array,
   {"grad_output": ("grad at the viewed elements", lambda gg, y, g, shape, index: _take_flat(gg, index, shape))})
op("copy", "CopyBackwards", ["self", "src"], lambda a, b: np.broadcast_to(b, np.shape(a)).astype(a.dtype),
   {"self": ("zeros_like(grad)", lambda g, out, a, b: g * 0),
    "src": ("grad.to(src.dtype)", lambda g, out, a, b: g)}, dtype=lambda arrays, attrs: arrays[0].dtype,
   names=Names(inplace=("copy_",)))
op("index_put", "IndexPutBackward0", ["self", "values"], lambda a, b, key: _put(a, key, b),
   {"self": ("grad.index_put(indices, zeros_like(values))", lambda g, out, a, b, key: _put_zero(g, key)),
    "values": ("grad[indices]", lambda g, out, a, b, key: g[(Ellipsis,) + key])})
op("index", "IndexBackward0", ["self"], lambda a, key: a[key],
   {"self": ("index_put(zeros_like(self), indices, grad, accumulate=True)",
             lambda g, out, a, key: _index_backward(g, shape=a.shape, key=key))}, saves=["indices"])
op("masked_fill", "MaskedFillBackward0", ["self"], lambda a, mask, value: np.where(mask, value, a),
   {"self": ("grad.masked_fill(mask, 0)", lambda g, out, a, mask, value: xp.where(mask, 0, g))}, saves=["mask"],
   check=_mask_shape, shape=_mask_shape, dtype=lambda arrays, attrs: arrays[0].dtype,
   names=names("masked_fill", inplace=True))
op("masked_fill_tensor", "MaskedFillBackward1", ["self", "value"], lambda a, value, mask: np.where(mask, value, a),
   {"self": ("grad.masked_fill(mask, 0)", lambda g, out, a, value, mask: xp.where(mask, 0, g)),
    "value": ("where(mask, grad, 0).sum()",
              lambda g, out, a, value, mask: xp.sum(xp.where(mask, g, 0), axis=tuple(range(-a.ndim, 0))))},
   saves={"self": ["mask"], "value": ["mask"]}, check=_mask_shape, shape=_mask_shape, dtype=lambda arrays, attrs: arrays[0].dtype)
op("where", "WhereBackward0", ["self", "other"], lambda a, b, condition: np.where(condition, a, b),
   {"self": ("where(condition, grad, 0)", lambda g, out, a, b, condition: g * condition),
    "other": ("where(condition, 0, grad)", lambda g, out, a, b, condition: g * ~condition)},
   saves={"self": ["condition"], "other": ["condition"]}, dtype=PROMOTE,
   names=functions("where"),
   shape=lambda arrays, attrs: (np.broadcast_shapes(attrs["condition"].shape, *map(np.shape, arrays)), 0))


def _bool_result(arrays, attrs):
    return _BOOL


_BOOL = np.dtype(np.bool_)


def _integral_operands(symbol: str):
    """The check of `&`, `|`, `^`: integer and bool operands only (PyTorch's TypeError for a float one)."""
    def check(arrays, attrs):
        a, b = arrays
        if a.dtype.kind == "f" or np.asarray(b).dtype.kind == "f":
            raise TypeError(f"unsupported operand type(s) for {symbol}: 'Tensor' and "
                            f"'{'Tensor' if type(b) is np.ndarray else type(b).__name__}'")
        BROADCASTS(arrays, attrs)
    return check


# --- comparisons and logical operators: no derivative, so their results never require grad ----------------
for _key, _compare in (("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal),
                       ("gt", np.greater), ("ge", np.greater_equal)):
    op(_key, None, [], _compare, {}, dtype=_bool_result, names=names(_key), shape=BROADCAST_SHAPE, check=BROADCASTS)
for _key, _fn, _symbol in (("bitwise_and", np.bitwise_and, "&"), ("bitwise_or", np.bitwise_or, "|"),
                           ("bitwise_xor", np.bitwise_xor, "^")):
    op(_key, None, [], _fn, {}, dtype=PROMOTE, shape=BROADCAST_SHAPE, check=_integral_operands(_symbol))
op("logical_not", None, [], np.logical_not, {}, dtype=_bool_result, names=names("logical_not"))
op("all", None, [], np.all, {}, dtype=_bool_result, names=names("all"))
op("any", None, [], np.any, {}, dtype=_bool_result, names=names("any"))


# --- gather, scatter, cumulative sums and products, repeat ----------------------------------------------
def _grids(index, dim):
    """A numpy key reading along `dim` at `index` (other dims by position): gather's and scatter's, after
    any leading batch axes (dim counts from the end)."""
    grids = list(np.ogrid[tuple(slice(n) for n in index.shape)])
    grids[dim] = index
    return (Ellipsis,) + tuple(grids)


def _scatter_add_along(g, shape, dim, index):
    """Zeros of `shape` (batch axes of g first) with g added along `dim` at `index` (gather's backward)."""
    grad = np.zeros(g.shape[: g.ndim - index.ndim] + tuple(shape), dtype=g.dtype)
    np.add.at(grad, _grids(index, dim), g)
    return grad


_gather_backward = _recorded("gather_backward", _scatter_add_along)


def _scattered(shape, dim, index):
    mask = np.zeros(shape, dtype=bool)
    mask[_grids(index, dim)] = True
    return mask


def _src_region(index):
    return tuple(slice(0, n) for n in index.shape)


def _scatter_forward(a, src, dim, index, add=False):
    out = a.copy()
    values = np.broadcast_to(src, index.shape) if np.ndim(src) == 0 else src[_src_region(index)]
    if add:
        np.add.at(out, _grids(index, dim), values)
    else:
        out[_grids(index, dim)] = values
    return out


def _src_rule(g, out, a, src, dim, index, name="ScatterBackward0"):
    """grad.gather(dim, index): index-shaped, so PyTorch refuses it for a src larger than index."""
    if tuple(np.shape(src)) != tuple(index.shape):
        raise RuntimeError(f"Function {name} returned an invalid gradient at index 1 - got {list(index.shape)} but "
                           f"expected shape compatible with {list(np.shape(src))}")
    return g[_grids(index, dim)]


op("gather_backward", "ScatterAddBackward0", ["grad_output"], _scatter_add_along,
   {"grad_output": ("grad.gather(dim, index)", lambda gg, y, g, shape, dim, index: gg[_grids(index, dim)])})
op("gather", "GatherBackward0", ["self"], lambda a, dim, index: a[_grids(index, dim)],
   {"self": ("gather_backward(grad, self, dim, index): zeros with grad added at index",
             lambda g, out, a, dim, index: _gather_backward(g, shape=np.shape(a), dim=dim, index=index))},
   saves=["self", "index"],
   names=names("gather"))
op("scatter", "ScatterBackward0", ["self", "src"], _scatter_forward,
   {"self": ("grad.scatter(dim, index, 0)", lambda g, out, a, src, dim, index:
             xp.where(_scattered(np.shape(a), dim, index), 0, g)),
    "src": ("grad.gather(dim, index)", _src_rule)}, saves={"self": ["index"], "src": ["index"]},
   dtype=lambda arrays, attrs: arrays[0].dtype,
   names=names("scatter", inplace=True))
op("scatter_value", "ScatterBackward1", ["self"], lambda a, dim, index, value: _scatter_forward(a, value, dim, index),
   {"self": ("grad.scatter(dim, index, 0)", lambda g, out, a, dim, index, value:
             xp.where(_scattered(np.shape(a), dim, index), 0, g))}, saves=["index"],
   dtype=lambda arrays, attrs: arrays[0].dtype)
def _along(dim, index):
    """A numpy key selecting `index` along `dim` (counted from the end: leading batch axes pass through)."""
    return (Ellipsis, index) + (slice(None),) * (-dim - 1)


def _embedding_rows(g, weight_shape, indices, padding_idx):
    """embedding_dense_backward: zeros of the weight's shape (batch axes of g first) with each row of g added at
    its index, so a row looked up twice gets the sum; the padding row gets nothing."""
    grad = np.zeros(np.shape(g)[: np.ndim(g) - indices.ndim - 1] + tuple(weight_shape), dtype=np.asarray(g).dtype)
    np.add.at(grad, (Ellipsis, indices, slice(None)), g)
    if padding_idx is not None:
        grad[..., padding_idx, :] = 0
    return grad


def _embedding_lookup(g, indices, padding_idx):
    """Rows of g at `indices` (batch axes first), 0 where the index is the padding row."""
    rows = g[(Ellipsis, indices, slice(None))]
    return rows if padding_idx is None else xp.where((indices == padding_idx)[..., None], 0, rows)


_embedding_backward = _recorded("embedding_dense_backward", _embedding_rows)
op("embedding_dense_backward", "EmbeddingDenseBackwardBackward0", ["grad_output"], _embedding_rows,
   {"grad_output": ("embedding(grad, indices), 0 at padding_idx", lambda gg, y, g, weight_shape, indices, padding_idx:
                    _embedding_lookup(gg, indices, padding_idx))})
op("embedding", "EmbeddingBackward0", ["weight"], lambda w, indices, padding_idx: w[indices],
   {"weight": ("embedding_backward(grad, indices, num_weights, padding_idx): rows of grad added at indices",
               lambda g, out, w, indices, padding_idx: _embedding_backward(g, weight_shape=np.shape(w), indices=indices,
                                                                           padding_idx=padding_idx))},
   saves=["indices"], dtype=lambda arrays, attrs: arrays[0].dtype)


def _index_add_forward(a, source, dim, index, alpha):
    out = a.copy()
    np.add.at(out, _along(dim, index), source if alpha == 1 else source * alpha)  # repeated indices add up
    return out


op("index_add", "IndexAddBackward0", ["self", "source"], _index_add_forward,
   {"self": ("grad", lambda g, out, a, source, dim, index, alpha: g),
    "source": ("grad.index_select(dim, index) * alpha",
               lambda g, out, a, source, dim, index, alpha: g[_along(dim, index)] * alpha if alpha != 1
               else g[_along(dim, index)])},
   saves={"source": ["index"]}, dtype=lambda arrays, attrs: arrays[0].dtype, names=names("index_add", inplace=True))
op("scatter_add", "ScatterAddBackward0", ["self", "src"],
   lambda a, src, dim, index: _scatter_forward(a, src, dim, index, add=True),
   {"self": ("grad", lambda g, out, a, src, dim, index: g),
    "src": ("grad.gather(dim, index)",
            lambda g, out, a, src, dim, index: _src_rule(g, out, a, src, dim, index, "ScatterAddBackward0"))},
   saves={"src": ["index"]}, dtype=lambda arrays, attrs: arrays[0].dtype,
   names=names("scatter_add", inplace=True))


def _cumulative(fn):
    """np.cumsum/np.cumprod, a 0-dim tensor kept 0-dim (its own cumulative sum)."""
    return lambda a, dim: fn(a, axis=dim) if np.ndim(a) else a.copy()


def _reverse_cumsum(g, dim):
    return xp.flip(xp.cumsum(xp.flip(g, (dim,)), dim), (dim,))


def _cumprod_rule(g, out, a, dim):
    """sum over k >= i of g_k * prod_{j <= k, j != i} a_j: reverse_cumsum(g * out) / a without zeros; with
    zeros, that sum term by term (n cumulative products of a with a_i set to 1)."""
    if np.ndim(a) == 0:
        return g
    if not np.any(xp.numeric(a) == 0):
        return _reverse_cumsum(g * out, dim) / a
    shape = tuple(np.shape(a))
    along = np.arange(shape[dim]).reshape((-1,) + (1,) * (-dim - 1))  # positions along dim, broadcastable
    parts = []
    for i in range(shape[dim]):
        others = xp.where(np.broadcast_to(along == i, shape), 1, a)
        later = np.broadcast_to(along >= i, shape).astype(np.float64 if xp.symbolic(a) else xp.numeric(a).dtype)
        parts.append(xp.sum(g * xp.cumprod(others, dim) * later, axis=dim, keepdims=True))
    return xp.concatenate(parts, dim)


def _cumulative_dtype(arrays, attrs):
    return arrays[0].dtype if arrays[0].dtype.kind == "f" else _INT64


op("cumsum", "CumsumBackward0", ["self"], _cumulative(np.cumsum),
   {"self": ("grad.flip(dim).cumsum(dim).flip(dim)",
             lambda g, out, a, dim: _reverse_cumsum(g, dim) if np.ndim(a) else g)},
   dtype=_cumulative_dtype,
   names=names("cumsum"))
op("cumprod", "CumprodBackward0", ["self"], _cumulative(np.cumprod),
   {"self": ("cumprod_backward(grad, self, dim, result)", _cumprod_rule)}, saves=["self", "result"],
   dtype=_cumulative_dtype,
   names=names("cumprod"))


def _repeat_shape(arrays, attrs):
    repeats = attrs["repeats"]
    padded = (1,) * (len(repeats) - np.ndim(arrays[0])) + np.shape(arrays[0])
    return tuple(r * n for r, n in zip(repeats, padded)), 0


def _repeat_rule(g, out, a, repeats):
    """Sum the copies: grad viewed as (r0, s0, r1, s1, …), summed over the r's."""
    padded = (1,) * (len(repeats) - np.ndim(a)) + tuple(np.shape(a))
    batch = tuple(g.shape[: len(g.shape) - len(repeats)])
    split = g.reshape(batch + tuple(x for r, n in zip(repeats, padded) for x in (r, n)))
    return xp.sum(split, axis=tuple(len(batch) + 2 * i for i in range(len(repeats))))


op("repeat", "RepeatBackward0", ["self"], lambda a, repeats: np.tile(a, repeats),
   {"self": ("grad summed over the copies", _repeat_rule)},
   names=names("repeat", function=False), shape=_repeat_shape)


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


_mse_backward = _recorded("mse_loss_backward", lambda g, a, b, reduction: _loss_back(
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
               lambda g, out, a, b, reduction: _loss_back(g, out, a.shape, reduction) * (xp.log(1 - a) - xp.log(a)))},
   saves={"self": ["self", "target"], "target": ["self"]}, shape=BROADCAST_SHAPE)


def _nll(a, target, reduction, ignore_index):
    kept = target != ignore_index
    safe = np.where(kept, target, 0)
    if a.ndim == 1:
        picked = -a[safe] * kept
    else:
        picked = -np.take_along_axis(a, np.expand_dims(safe, 1), 1).squeeze(1) * kept
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
        per = -g * kept
    else:
        per = -xp.expand_to(g, out, target.shape) * kept
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
        picked = xp.squeeze(_gather(gg, 1 - len(shape), np.expand_dims(safe, 1)), 1 - len(shape))
    picked = -picked * kept
    if reduction == "none":
        return picked
    total = xp.sum(picked, axis=tuple(range(-np.ndim(target), 0))) if np.ndim(target) else picked
    return total / np.sum(kept) if reduction == "mean" else total


_nll_backward = _recorded("nll_loss_backward", _nll_backward_array)
op("nll_loss_backward", "NllLossBackwardBackward0", ["grad_output"], _nll_backward_array,
   {"grad_output": ("-(grad at each target), reduced as the loss", _nll_double_rule)})
op("nll_loss2d", "NllLoss2DBackward0", ["self"], _nll,
   {"self": ("-grad at each target (/ N for 'mean')", _nll_rule)}, saves=["self", "target"])
op("nll_loss", "NllLossBackward0", ["self"], _nll,
   {"self": ("-grad at each target (/ N for 'mean')", _nll_rule)}, saves=["self", "target"])


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
    return xp.take(g, index, dim)


VARIADIC = {
    "cat": ("CatBackward0", lambda *arrays, dim: np.concatenate(arrays, axis=dim), "grad.narrow(dim, offset, size)",
            _cat_rule),
    "stack": ("StackBackward0", lambda *arrays, dim: np.stack(arrays, axis=dim), "grad.select(dim, index)",
              _stack_rule),
}


def _cat_shape(arrays, attrs):
    dim, shape = attrs["dim"], list(np.shape(arrays[0]))
    shape[dim] = sum(np.shape(a)[dim] for a in arrays)
    return tuple(shape), 0


def _stack_shape(arrays, attrs):
    shape = list(np.shape(arrays[0]))
    shape.insert(attrs["dim"] % (len(shape) + 1), len(arrays))
    return tuple(shape), 0


_JOINED_SHAPE = {"cat": _cat_shape, "stack": _stack_shape}


def variadic(key: str, n: int) -> Op:
    """The Op of `cat`/`stack` over n tensors: the same rule, told which input it serves."""
    name = f"{key}/{n}"
    if name not in OPS:
        grad_fn, forward, formula, rule = VARIADIC[key]
        rules = {f"tensors[{i}]": (formula, _bind_index(rule, i)) for i in range(n)}
        op(name, grad_fn, list(rules), forward, rules, shape=_JOINED_SHAPE[key])
    return OPS[name]


def _bind_index(rule, index):
    return lambda g, out, *arrays, **attrs: rule(g, out, *arrays, index=index, **attrs)
