"""Ops over a list of tensors, `cat` and `stack`: one rule, specialised per input position and count.
"""
from __future__ import annotations

import weakref

import numpy as np

from engine import xp
from engine.ops.record import OPS, Op, op

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
