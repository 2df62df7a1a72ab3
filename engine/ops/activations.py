"""Activation functions of `torch.nn.functional` beyond relu/sigmoid/tanh (leaky_relu, elu, silu, softplus,
gelu) and dropout's masked scaling: each one node named as PyTorch's, with the derivative PyTorch's kernel uses
(branches as masks, so a dropped gradient is +0 as there)."""
from __future__ import annotations

import math

from engine import xp
from engine.ops.record import FLOATING, op

_SQRT1_2 = 1 / math.sqrt(2.0)
_INV_SQRT_2PI = 1 / math.sqrt(2.0 * math.pi)


def _leaky(a, slope):
    return xp.where(xp.greater(a, 0), a, a * slope)


op("leaky_relu", "LeakyReluBackward0", ["self"], _leaky,
   {"self": ("leaky_relu_backward(grad, self, negative_slope): grad where self > 0, else grad * negative_slope",
             lambda g, out, a, slope: xp.where(xp.greater(a, 0), g, g * slope))},
   saves=["self"], dtype=FLOATING)


def _elu(a, alpha):
    return xp.where(xp.greater(a, 0), a, xp.expm1(a) * alpha)


op("elu", "EluBackward0", ["self"], _elu,
   {"self": ("elu_backward(grad, alpha, self): grad where self > 0, else grad * alpha * exp(self)",
             lambda g, out, a, alpha: xp.where(xp.greater(a, 0), g, g * (xp.exp(a) * alpha)))},
   saves=["self"], dtype=FLOATING)
op("silu", "SiluBackward0", ["self"], lambda a: a * xp.sigmoid(a),
   {"self": ("grad * sigmoid(self) * (1 + self * (1 - sigmoid(self)))",
             lambda g, out, a: g * (xp.sigmoid(a) * (1 + a * (1 - xp.sigmoid(a)))))},
   saves=["self"], dtype=FLOATING)


def _softplus(a, beta, threshold):
    return xp.where(xp.greater(a * beta, threshold), a, xp.log(1 + xp.exp(a * beta)) / beta)


def _softplus_back(g, out, a, beta, threshold):
    z = xp.exp(a * beta)
    return xp.where(xp.greater(a * beta, threshold), g, g * z / (z + 1))


op("softplus", "SoftplusBackward0", ["self"], _softplus,
   {"self": ("softplus_backward(grad, self, beta, threshold): grad * z / (z + 1), z = exp(self * beta)",
             _softplus_back)},
   saves=["self"], dtype=FLOATING)
op("gelu", "GeluBackward0", ["self"], lambda a: a * 0.5 * (1 + xp.erf(a * _SQRT1_2)),
   {"self": ("gelu_backward(grad, self): grad * (Phi(self) + self * phi(self))",
             lambda g, out, a: g * (0.5 * (1 + xp.erf(a * _SQRT1_2)) + a * (xp.exp(a * a * -0.5) * _INV_SQRT_2PI)))},
   saves=["self"], dtype=FLOATING)
op("native_dropout", "NativeDropoutBackward0", ["input"], lambda a, mask, scale: a * mask * scale,
   {"input": ("native_dropout_backward(grad, mask, scale): grad * mask * scale",
              lambda g, out, a, mask, scale: g * mask * scale)},
   dtype=FLOATING)
