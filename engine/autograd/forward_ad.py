"""`torch.autograd.forward_ad`: dual tensors, whose tangents every op of the derivative table carries forward.

There is no second rule set. An op's VJP rule g ↦ Jᵀg is linear in g, so running it on a Tensor `g` records
that linear map as a graph of table ops, and one reverse sweep of that graph with the input's tangent t gives
its transpose applied to t: J·t (the double-VJP trick, per op, as `torch.func.jvp` does per function).
Outside a dual level no op pays more than one check of `engine.state`'s `forward_ad` (this module while a
level is open, else None).

Tangents are plain tensors: they carry no graph of their own (PyTorch's tangents are backward-differentiable).
"""
from __future__ import annotations

import contextlib
import re
import sys
import weakref
from typing import NamedTuple

import numpy as np

from engine import state
from engine import tensor as _tensor
from engine.graph import TangentStep, pullback, report_tangent
from engine.tensor import _TENSOR_TYPES, Tensor, _apply
from engine.xp_tensor import sum_to

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level"]

def current_level() -> int:
    """The open dual level (0; PyTorch does not nest them either), or -1: kept in `engine.state`."""
    return -1 if state.current().forward_ad is None else 0


_duals: list = []  # weak references to every tensor given a tangent at the current level (dropped at exit)


class UnpackedDualTensor(NamedTuple):
    """What `unpack_dual` returns: the primal and its tangent (None when it has none at this level)."""

    primal: Tensor
    tangent: Tensor | None


def enter_dual_level() -> int:
    """Open the forward-AD level (only one: PyTorch does not nest them either)."""
    if current_level() >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _tensor.set_forward_ad(sys.modules[__name__])
    return 0


def exit_dual_level(*, level=None) -> None:
    """Close the level: every tangent made in it is deleted."""
    level = current_level() if level is None else level
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != current_level():
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    _tensor.set_forward_ad(None)
    for ref in _duals:
        t = ref()
        if t is not None and tangent_of(t) is not None:
            del t._tangent
    _duals.clear()


class dual_level:  # noqa: N801 - PyTorch's spelling
    """`with fwAD.dual_level():` — forward-AD computations happen inside; their tangents are deleted at the end."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc) -> None:
        exit_dual_level()


def tangent_of(t) -> Tensor | None:
    return getattr(t, "_tangent", None)


def _give(t: Tensor, tangent: Tensor | None) -> None:
    if tangent is None:
        if tangent_of(t) is not None:
            del t._tangent
        return
    t._tangent = tangent
    _duals.append(weakref.ref(t))


@contextlib.contextmanager
def suspended(record: bool = True):
    """Ops inside are computed without tangents (the transposed rules, make_dual's view), recording a graph
    if `record` (the rule's graph over `g` needs it)."""
    previous = state.update(forward_ad=None, grad=record)
    try:
        yield
    finally:
        state.restore(previous, "forward_ad", "grad")


def _check_level(level, message: str) -> None:
    if level is not None and level != current_level():
        raise RuntimeError(message)


def _sizes(t: Tensor) -> str:
    return "[" + ",".join(map(str, t._data.shape)) + "]"


def _layout(a: np.ndarray) -> tuple:
    return tuple(s // a.itemsize for s in a.strides)


def make_dual(tensor, tangent, *, level=None) -> Tensor:
    """A view of `tensor` carrying `tangent` (as-is when it has the primal's layout, else a copy)."""
    if (current_level() if level is None else level) < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    _check_level(level, "Invalid level given to _make_dual")
    if not tensor.is_floating_point():
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not tangent.is_floating_point():
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if tangent._data.shape != tensor._data.shape:
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {_sizes(tensor)} while the given "
                           f"forward gradient is of size {_sizes(tangent)}.")
    if tangent_of(tensor) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward gradient at the same "
                           "level 0 is not supported.")
    if _layout(tangent._data) != _layout(tensor._data):
        copy = np.empty_like(tensor._data, dtype=tangent._data.dtype)
        np.copyto(copy, tangent._data)
        tangent = Tensor._make(copy)
    with suspended(record=state.current().grad):
        dual = _apply("view", (tensor,), shape=tensor._data.shape)
    _give(dual, tangent)
    _report("make_dual", dual, primal=tensor)
    return dual


def unpack_dual(tensor, *, level=None) -> UnpackedDualTensor:
    """(primal, tangent): the primal as a view of `tensor` without tangent, and the tangent as-is (None if none)."""
    if (current_level() if level is None else level) < 0:
        return UnpackedDualTensor(tensor, None)
    if not isinstance(tensor, Tensor):
        raise TypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not {type(tensor).__name__}")
    _check_level(level, "Invalid level given to _fw_primal")
    tangent = tangent_of(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    with suspended(record=state.current().grad):
        primal = _apply("alias", (tensor,))
    _report("unpack_dual", tensor)
    return UnpackedDualTensor(primal, tangent)


_NOT_IMPLEMENTED = re.compile(r"derivative for (aten::\w+) is not implemented")


def propagate(op, inputs: tuple, attrs: dict, result: Tensor) -> None:
    """Called by `engine.tensor._run` inside a dual level: give `result` the tangent J·t of its op."""
    tangents = [tangent_of(t) if type(t) in _TENSOR_TYPES else None for t in inputs[: len(op.vjp)]]
    if not any(t is not None for t in tangents):
        return
    total = None
    with suspended():
        g = Tensor._make(np.zeros_like(result._data), requires_grad=True)
        out = Tensor._make(result._data)
        args = [Tensor._make(t._data) if type(t) in _TENSOR_TYPES else t for t in inputs]
        for i, t in enumerate(tangents):
            if t is None:
                continue
            try:
                gi = op.vjp[i](g, out, *args, **attrs)
            except RuntimeError as err:
                found = _NOT_IMPLEMENTED.match(str(err))
                if found is None:
                    raise
                raise NotImplementedError(f"Trying to use forward AD with {found[1]} that does not support it.") \
                    from None
            if gi is None or not isinstance(gi, Tensor) or not gi._requires_grad:
                continue  # an undefined or constant (zero) derivative: nothing flows
            shape = args[i]._data.shape
            if gi._data.shape != shape:
                gi = sum_to(gi, shape)
            (jt,) = pullback(gi._grad_edge(), t._data.astype(gi._data.dtype, copy=False), [g._grad_edge()])
            total = jt if total is None else total + jt
    if total is None:
        total = np.zeros_like(result._data)
    _give(result, Tensor._make(np.array(np.broadcast_to(total, result._data.shape), dtype=result._data.dtype)))
    _report("op", result, op=op, inputs=tuple(inputs), attrs=attrs, tangent_inputs=tuple(tangents))


def _report(kind: str, result: Tensor, **fields) -> None:
    """Tell the explanation layer's recorders (`engine.graph.report_tangent`; the copies are made only when
    one records) what this step did."""
    def step():
        tangent = tangent_of(result)
        arrays = tuple(np.array(t._data) if type(t) in _TENSOR_TYPES else t for t in fields.get("inputs", ()))
        return TangentStep(kind, result, np.array(result._data), None if tangent is None else np.array(tangent._data),
                           tangent, arrays=arrays, **fields)
    report_tangent(step)


def custom_jvp(cls, ctx, args: tuple, output: Tensor) -> None:
    """A custom `autograd.Function` with dual inputs: the output's tangent (each output's, when `output` is a
    tuple) is the Function's own `jvp` (PyTorch passes zeros for tensor inputs without a tangent, None for other
    inputs)."""
    tangents = [None if not isinstance(a, Tensor) else tangent_of(a) for a in args]
    if all(t is None for t in tangents):
        return
    tangents = [t if t is not None or not isinstance(a, Tensor) else Tensor._make(np.zeros_like(a._data))
                for a, t in zip(args, tangents)]
    ctx._in_jvp = True  # ctx.saved_tensors are save_for_forward's
    try:
        with suspended(record=state.current().grad):
            tangent = cls.jvp(ctx, *tangents)
    finally:
        ctx._in_jvp = False
    if isinstance(output, tuple):  # several outputs: one tangent each
        for o, t in zip(output, tangent if isinstance(tangent, (tuple, list)) else (tangent,)):
            if isinstance(o, Tensor):
                _give(o, t)
        return
    if isinstance(tangent, tuple) and len(tangent) == 1:
        tangent = tangent[0]
    _give(output, tangent)


def inplace(target: Tensor, result: Tensor | None) -> None:
    """An in-place op wrote `result` into `target`: the target now has the result's tangent (none for None,
    as after detach_)."""
    _give(target, None if result is None else tangent_of(result))


def filled(target: Tensor) -> None:
    """A constant was written into `target` (fill_, zero_): its tangent, if any, is now zero."""
    if tangent_of(target) is not None:
        _give(target, Tensor._make(np.zeros_like(target._data)))


def format_suffix(t: Tensor) -> str | None:
    """PyTorch's `tangent=...` suffix of a dual tensor's printout (a 0-dim tangent shows as a number)."""
    tangent = tangent_of(t)
    return None if tangent is None else f"tangent={tangent}"
