"""Element-wise ops: arithmetic (+ - * / // % **, with PyTorch's bool and integer-division refusals), the unary
functions (exp, log, sqrt, sin, cos, tanh, sigmoid, relu, abs, sign, clamp), maximum/minimum and atan2.
"""
from __future__ import annotations

import operator

import numpy as np

from engine import xp
from engine.dtypes import result_type
from engine.ops.backward_ops import sigmoid_backward, tanh_backward, threshold_backward
from engine.ops.record import BROADCAST_SHAPE, BROADCASTS, FLOATING, PROMOTE, Names, names, not_implemented, op


def _refuse_bool(kernel: str):
    def check(arrays, attrs):
        if arrays[0].dtype == np.bool_:
            raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    return check


def _pow_self_rule(g, out, a, b):
    """d a**b / d a, 0 where the exponent is 0 (PyTorch's pow_backward_self), for a number or tensor b."""
    if np.ndim(b) == 0 and not xp.symbolic(b) and not xp.is_tensor(b):
        return xp.zeros(np.shape(g), g) if b == 0 else g * xp.scale(a ** (b - 1), b)  # zeros_like, as PyTorch
    return xp.where(xp.numeric(b) == 0, 0, g * (b * a ** (b - 1)))


def _pow_exponent_rule(g, out, a, b):
    """d a**b / d b = result * log(a), 0 where a == 0 and b >= 0 (PyTorch's pow_backward_exponent: grad times that
    masked factor, so a negative grad gives -0 there, as in PyTorch)."""
    mask = (xp.numeric(a) == 0) & (xp.numeric(b) >= 0)
    log_a = xp.log(xp.where(mask, 1, a))
    return g * xp.where(mask, 0, out * log_a)


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


# --- arithmetic -------------------------------------------------------------------------------
op("add", "AddBackward0", ["self", "other"], operator.add,
   {"self": ("grad", lambda g, out, a, b: g), "other": ("grad", lambda g, out, a, b: g)}, dtype=PROMOTE,
   names=names("add", inplace=True, number_first="__radd__"), shape=BROADCAST_SHAPE, check=BROADCASTS)
op("sub", "SubBackward0", ["self", "other"], _bool_arith("-", _BOOL_SUB),
   {"self": ("grad", lambda g, out, a, b: g), "other": ("-grad", lambda g, out, a, b: -g)}, dtype=PROMOTE,
   names=names("sub", inplace=True, number_first="op"), shape=BROADCAST_SHAPE, check=BROADCASTS)
op("rsub", "RsubBackward1", ["self"], _bool_arith("r-", _BOOL_SUB_SCALAR),
   {"self": ("-grad", lambda g, out, a, b: -g)}, dtype=PROMOTE)
op("mul", "MulBackward0", ["self", "other"], operator.mul,
   {"self": ("grad * other", lambda g, out, a, b: g * b),
    "other": ("grad * self", lambda g, out, a, b: g * a)}, saves={"self": ["other"], "other": ["self"]}, dtype=PROMOTE,
   names=names("mul", inplace=True, number_first="__rmul__"), shape=BROADCAST_SHAPE, check=BROADCASTS)
# a Tensor times a Scalar inside a derivative rule (C++'s at::mul(Tensor, Scalar)); Python's `x * 3` is MulBackward0
op("mul_scalar", "MulBackward1", ["self"], lambda a, other: a * other,
   {"self": ("grad * other", lambda g, out, a, other: g * other)}, dtype=PROMOTE)
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
             lambda g, out, a: tanh_backward(g, out))}, saves=["result"],
   dtype=FLOATING,
   names=names("tanh", inplace=True, inplace_function=True))
op("sigmoid", "SigmoidBackward0", ["self"], xp.sigmoid,
   {"self": ("sigmoid_backward(grad, result): grad * result * (1 - result)",
             lambda g, out, a: sigmoid_backward(g, out))}, saves=["result"],
   dtype=FLOATING,
   names=names("sigmoid", inplace=True, inplace_function=True))
op("relu", "ReluBackward0", ["self"], xp.relu,
   {"self": ("threshold_backward(grad, result, 0): 0 where result <= 0",
             lambda g, out, a: threshold_backward(g, out))}, saves=["result"],
   names=names("relu", inplace=True, inplace_function=True))
op("abs", "AbsBackward0", ["self"], xp.abs,
   {"self": ("grad * self.sign()", lambda g, out, a: g * xp.sign(a))}, saves=["self"],
   names=names("abs", inplace=True, inplace_function=True), check=_refuse_bool("abs_cpu"))
op("sign", "SignBackward0", ["self"], lambda a: xp.sign(a) if a.dtype != np.bool_ else a.copy(),
   {"self": ("zeros_like(grad)", lambda g, out, a: xp.zeros(np.shape(g), g))},
   names=names("sign", inplace=True))
op("clamp_min", "ClampMinBackward0", ["self"], lambda a, low: xp.clip(a, low, None),
   {"self": ("where(self >= min, grad, 0)", lambda g, out, a, low: xp.select(xp.between(a, low, None), g))},
   saves=["self"], dtype=lambda arrays, attrs: result_type(arrays[0], attrs["low"]),
   names=names("clamp_min", inplace=True))
op("clamp_max", "ClampMaxBackward0", ["self"], lambda a, high: xp.clip(a, None, high),
   {"self": ("where(self <= max, grad, 0)", lambda g, out, a, high: xp.select(xp.between(a, None, high), g))},
   saves=["self"], dtype=lambda arrays, attrs: result_type(arrays[0], attrs["high"]),
   names=names("clamp_max", inplace=True))
op("zero", "ZeroBackward0", ["self"], lambda a: a * 0, {"self": ("zeros_like(grad)", lambda g, out, a: xp.zeros(np.shape(g), g))},
   names=Names(inplace=("zero_",)))
op("clamp", "ClampBackward1", ["self"], lambda a, low, high: xp.clip(a, low, high),
   {"self": ("where(min <= self <= max, grad, 0)",
             lambda g, out, a, low, high: xp.select(xp.between(a, low, high), g))},
   saves=["self"], dtype=_clamp_dtype,
   names=names("clamp", "clip", inplace=True))
def _extremum_rule(g, a, b, lost):
    """maximum/minimum's gradient for one operand: PyTorch's `where(self == other, grad / 2, grad)` with +0 where
    this operand lost (`masked_fill_(lost, 0)`)."""
    return xp.select(lost, 0, xp.select(xp.equal(a, b), g / 2, g))


op("maximum", "MaximumBackward0", ["self", "other"], xp.maximum,
   {"self": ("grad, halved where self == other, 0 where self < other",
             lambda g, out, a, b: _extremum_rule(g, a, b, xp.greater(b, a))),
    "other": ("grad, halved where self == other, 0 where self > other",
              lambda g, out, a, b: _extremum_rule(g, a, b, xp.greater(a, b)))},
   saves={"self": ["self", "other"], "other": ["self", "other"]}, dtype=PROMOTE,
   names=names("maximum"), shape=BROADCAST_SHAPE, check=BROADCASTS)
op("minimum", "MinimumBackward0", ["self", "other"], xp.minimum,
   {"self": ("grad, halved where self == other, 0 where self > other",
             lambda g, out, a, b: _extremum_rule(g, a, b, xp.greater(a, b))),
    "other": ("grad, halved where self == other, 0 where self < other",
              lambda g, out, a, b: _extremum_rule(g, a, b, xp.greater(b, a)))},
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
# the rest of the trigonometric, hyperbolic and logarithmic family (derivatives.yaml's formulas)
op("tan", "TanBackward0", ["self"], xp.tan,
   {"self": ("grad * (1 + result.pow(2))", lambda g, out, a: g * (1 + out * out))}, saves=["result"], dtype=FLOATING,
   names=names("tan", inplace=True))
op("asin", "AsinBackward0", ["self"], xp.asin,
   {"self": ("grad * (-self * self + 1).rsqrt()", lambda g, out, a: g * (1 / xp.sqrt(1 - a * a)))}, saves=["self"],
   dtype=FLOATING, names=names("asin", inplace=True))
op("acos", "AcosBackward0", ["self"], xp.acos,
   {"self": ("grad * -(-self * self + 1).rsqrt()", lambda g, out, a: g * -(1 / xp.sqrt(1 - a * a)))},
   saves=["self"], dtype=FLOATING, names=names("acos", inplace=True))
op("atan", "AtanBackward0", ["self"], xp.atan,
   {"self": ("grad / (self * self + 1)", lambda g, out, a: g / (a * a + 1))}, saves=["self"], dtype=FLOATING,
   names=names("atan", inplace=True))
op("sinh", "SinhBackward0", ["self"], xp.sinh,
   {"self": ("grad * self.cosh()", lambda g, out, a: g * xp.cosh(a))}, saves=["self"], dtype=FLOATING,
   names=names("sinh", inplace=True))
op("cosh", "CoshBackward0", ["self"], xp.cosh,
   {"self": ("grad * self.sinh()", lambda g, out, a: g * xp.sinh(a))}, saves=["self"], dtype=FLOATING,
   names=names("cosh", inplace=True))
op("expm1", "Expm1Backward0", ["self"], xp.expm1,
   {"self": ("grad * (result + 1)", lambda g, out, a: g * (out + 1))}, saves=["result"], dtype=FLOATING,
   names=names("expm1", inplace=True))
op("exp2", "Exp2Backward0", ["self"], xp.exp2,
   {"self": ("grad * result * 0.6931471805599453", lambda g, out, a: g * out * 0.6931471805599453)},
   saves=["result"], dtype=FLOATING, names=names("exp2", inplace=True))
op("erf", "ErfBackward0", ["self"], xp.erf,
   {"self": ("2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad",
             lambda g, out, a: g * (1.1283791670955126 * xp.exp(-(a * a))))}, saves=["self"], dtype=FLOATING,
   names=names("erf", inplace=True))
op("log2", "Log2Backward0", ["self"], lambda a: xp.log(a) / np.log(2.0),
   {"self": ("grad / (self * 0.6931471805599453)", lambda g, out, a: g / (a * 0.6931471805599453))},
   saves=["self"], dtype=FLOATING, names=names("log2", inplace=True))
op("log10", "Log10Backward0", ["self"], lambda a: xp.log(a) / np.log(10.0),
   {"self": ("grad / (self * 2.302585092994046)", lambda g, out, a: g / (a * 2.302585092994046))},
   saves=["self"], dtype=FLOATING, names=names("log10", inplace=True))
op("rsqrt", "RsqrtBackward0", ["self"], lambda a: 1 / xp.sqrt(a),
   {"self": ("-0.5 * grad * result.pow(3)", lambda g, out, a: -0.5 * g * out * out * out)}, saves=["result"],
   dtype=FLOATING, names=names("rsqrt", inplace=True))


def _rounding(name: str, fn):
    """floor, ceil, round, trunc: steps, whose derivative PyTorch defines as 0 everywhere (integers pass through)."""
    op(name, f"{name.capitalize()}Backward0", ["self"], lambda a: fn(a) if a.dtype.kind == "f" else a.copy(),
       {"self": ("zeros_like(grad)", lambda g, out, a: xp.zeros(np.shape(g), g))},
       names=names(name, inplace=True), check=_refuse_bool(f"{name}_cpu" if name != "round" else "round_cpu"))


for _name, _fn in (("floor", np.floor), ("ceil", np.ceil), ("round", np.round), ("trunc", np.trunc)):
    _rounding(_name, _fn)
op("log1p", "Log1PBackward0", ["self"], lambda a: xp.log(1 + a),
   {"self": ("grad / (self + 1)", lambda g, out, a: g * (1 / (a + 1)))}, saves=["self"], dtype=FLOATING,
   names=names("log1p", inplace=True))
