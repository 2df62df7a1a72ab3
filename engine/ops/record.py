"""The op record (`Op`), how learners reach an op (`Names`), and `op()`, which registers a record in `OPS`.

Also the dtype rules (PROMOTE, FLOATING, INTEGRAL_TO_LONG) and the broadcast checks and shape functions
the families share. Every other module of `engine.ops` is a family of records built with `op()`.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine.dtypes import common_dtype


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
    names("detach", inplace=True), Names(inplace=("fill_",)), names("diag"), names("outer", "ger"),
    names("unbind"), names("split"), names("chunk"), names("isclose"), names("broadcast_to"), names("argsort"),
    *(names(m, function=False) for m in ("type_as", "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor")),
)


OPS: dict[str, Op] = {}


@functools.lru_cache(maxsize=None)
def saved_tensors(op: Op, wanted: int) -> tuple[tuple[int, ...], bool]:
    """What PyTorch saves when the inputs in bitmask `wanted` need a gradient, as its codegen does: the inputs
    that their rules are declared to read, and the result whenever any rule reads it (codegen saves an output
    unconditionally: `x ** w` with only x needing a gradient still saves its result, and an in-place change of
    that result is still refused) — (positions of saved inputs, whether the result is saved)."""
    names = {name for i, needs in enumerate(op.needs) if wanted >> i & 1 for name in needs}
    return tuple(i for i, name in enumerate(op.inputs) if name in names), "result" in op.saves


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
    if len(arrays) == 2 and type(arrays[0]) is np.ndarray and type(arrays[1]) is float:  # (x * 0.5: the hot case,
        dtype = arrays[0].dtype  # without common_dtype's call; a float number keeps a float tensor's dtype)
        if dtype.kind == "f":
            return dtype
    return common_dtype(arrays)


def FLOATING(arrays, attrs):  # noqa: N802
    """Like PROMOTE, but integers give float32 (true division, exp, sqrt…)."""
    if len(arrays) == 1 and type(arrays[0]) is np.ndarray and arrays[0].dtype.kind == "f":  # exp, sin… of a float tensor
        return arrays[0].dtype
    found = common_dtype(arrays)
    return found if found.kind == "f" else _FLOAT32


INT64 = np.dtype(np.int64)
_FLOAT32 = np.dtype(np.float32)


def INTEGRAL_TO_LONG(arrays, attrs):  # noqa: N802
    """sum and prod: integer and bool tensors give int64, floats keep their dtype."""
    return arrays[0].dtype if arrays[0].dtype.kind == "f" else INT64


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
