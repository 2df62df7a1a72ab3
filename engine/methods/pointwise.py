"""Tensor methods of the element-wise ops: arithmetic with its operators (`x + y` is `x.add(y)`'s record),
comparisons, clamp, maximum/minimum, masked_fill."""
from __future__ import annotations

import numpy as np

from engine import dtypes
from engine.tensor import Tensor, _apply, _as_operand, _binary, _tensor_arg, binary_operator


class PointwiseMethods:
    """Element-wise ops and the operators. (attached to `Tensor` by `engine.registry`)"""

    # --- arithmetic ---------------------------------------------------------------------------
    __add__ = binary_operator("add")

    __radd__ = binary_operator("add")

    __sub__ = binary_operator("sub")

    def __rsub__(self, other):
        if isinstance(other, Tensor):
            return _binary("sub", other, self)
        return _apply("rsub", (self, _as_operand(other)))

    __mul__ = binary_operator("mul")

    __rmul__ = binary_operator("mul")

    __truediv__ = binary_operator("div")

    def __rtruediv__(self, other):
        if isinstance(other, Tensor):
            return _binary("div", other, self)
        return _apply("reciprocal", (self,)) * other

    def __floordiv__(self, other):
        return _binary("floor_divide", self, other)

    def __rfloordiv__(self, other):
        return _apply("rfloor_divide", (self, _as_operand(other)))

    def __mod__(self, other):
        if isinstance(other, Tensor):
            return _binary("remainder_tensor", self, other)
        return _binary("remainder", self, other)

    def __rmod__(self, other):
        return _apply("rremainder", (self, _as_operand(other)))

    def floor_divide(self, other):
        return self // other

    def remainder(self, other):
        return self % other

    def __neg__(self):
        return _apply("neg", (self,))

    def __pos__(self):
        return self

    def __pow__(self, exponent):
        return self.pow(exponent)

    def __rpow__(self, base):
        if isinstance(base, Tensor):
            return base.pow(self)
        return _apply("rpow", (self, _as_operand(base)))

    def pow(self, exponent):
        if isinstance(exponent, Tensor):
            if self._data.dtype.kind in "iu" and exponent._data.dtype.kind in "iu" and (exponent._data < 0).any():
                raise RuntimeError("Integers to negative integer powers are not allowed.")
            return _binary("pow_tensor", self, exponent)
        if self._data.dtype.kind in "iu" and isinstance(exponent, int) and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return _apply("pow", (self,), exponent=_as_operand(exponent))

    def add(self, other, alpha=1):
        return self + (other * alpha if alpha != 1 else other)

    def sub(self, other, alpha=1):
        return self - (other * alpha if alpha != 1 else other)

    def mul(self, other):
        return self * other

    def div(self, other):
        return self / other

    def square(self):
        return self.pow(2)

    # comparisons and logical operators give tensors that never require grad (their records have no rules)
    def eq(self, other):
        return _binary("eq", self, other)

    def ne(self, other):
        return _binary("ne", self, other)

    def lt(self, other):
        return _binary("lt", self, other)

    def le(self, other):
        return _binary("le", self, other)

    def gt(self, other):
        return _binary("gt", self, other)

    def ge(self, other):
        return _binary("ge", self, other)

    __eq__, __ne__, __lt__, __le__, __gt__, __ge__ = eq, ne, lt, le, gt, ge

    def all(self):
        return _apply("all", (self,))

    def any(self):
        return _apply("any", (self,))

    def __and__(self, other):
        return _binary("bitwise_and", self, other)

    def __or__(self, other):
        return _binary("bitwise_or", self, other)

    def __xor__(self, other):
        return _binary("bitwise_xor", self, other)

    __rand__, __ror__, __rxor__ = __and__, __or__, __xor__

    def __invert__(self):
        if self._data.dtype.kind == "f":
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
        return Tensor._make(np.invert(self._data))

    def logical_not(self):
        return _apply("logical_not", (self,))

    def allclose(self, other, rtol=1e-05, atol=1e-08) -> bool:
        return bool(np.allclose(self._data, _as_operand(other)._data, rtol=rtol, atol=atol))

    def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        """Elementwise |self - other| <= atol + rtol * |other| (a bool tensor; nothing to differentiate)."""
        other = _as_operand(other)
        if self._data.dtype != other._data.dtype:
            raise RuntimeError(f"{dtypes.SCALAR_TYPE_NAMES[self._data.dtype.name]} did not match "
                               f"{dtypes.SCALAR_TYPE_NAMES[other._data.dtype.name]}")
        return Tensor._make(np.isclose(self._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))

    def equal(self, other) -> bool:
        return self._data.shape == other._data.shape and bool(np.array_equal(self._data, other._data))

    def clamp(self, min=None, max=None):  # noqa: A002 - PyTorch's argument names
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        return _apply("clamp", (self,), low=min, high=max)

    clip = clamp

    def clamp_min(self, min):  # noqa: A002
        return _apply("clamp_min", (self,), low=min)

    def clamp_max(self, max):  # noqa: A002
        return _apply("clamp_max", (self,), high=max)

    def maximum(self, other):
        return _binary("maximum", self, _tensor_arg(other, "maximum", "other"))

    def atan2(self, other):
        """`y.atan2(x)`: the angle of the point (x, y), in (-π, π]; `other` must be a tensor, as in PyTorch."""
        return _binary("atan2", self, _tensor_arg(other, "atan2", "other"))

    def minimum(self, other):
        return _binary("minimum", self, _tensor_arg(other, "minimum", "other"))

    def masked_fill(self, mask, value):
        mask = _tensor_arg(mask, "masked_fill", "mask")
        if mask._data.dtype != np.bool_:
            raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                               f"{dtypes.C_TYPE_NAMES[mask._data.dtype.name]}")
        if isinstance(value, Tensor):
            if value._data.ndim:
                raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                                   f"{value._data.ndim} dimension(s).")
            return _apply("masked_fill_tensor", (self, value), mask=mask._data)
        return _apply("masked_fill", (self,), mask=mask._data, value=value)
