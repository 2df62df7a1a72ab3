"""Comparisons and logical operators: no derivative, so their results never require grad.
"""
from __future__ import annotations

import numpy as np

from engine.ops.record import BROADCAST_SHAPE, BROADCASTS, PROMOTE, names, op


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
