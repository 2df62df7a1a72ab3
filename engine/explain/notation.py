"""Tensor notation: formulas such as `2*x.sum()`, `exp(x)/exp(x).sum()` or `v @ W.T`, derived and checked.

The chain rule view needs a formula for ∂y/∂x (or vᵀ∂y/∂x) that a learner can read and that is
true for every element. It is derived by one reverse sweep over the recorded graph
(`engine.explain.notation_sweep`) in which every value is a *tensor expression*: a sympy expression whose
symbols stand for whole tensors (`x`, `W`, `v`), whose arithmetic is element-wise with broadcasting, and in
which reductions, products and shape changes are opaque functions (`tsum(x)` prints as `x.sum()`,
`matmul(v, mT(W))` as `v @ W.T`). Element-wise nodes run the engine's own VJP rules from `engine.ops` on
these expressions; nodes whose rule depends on shapes or on a branch (sums, means, matmul, softmax, relu,
abs, clamp…) are written in the same notation, the branch kept as a function of the tensor
(`(x > 0)`, `sign(x)`) rather than decided at one point, so the formula holds for every element.

This module holds the notation: its functions, `evaluate` (a formula with numpy at the program's values),
the text a formula reads as, and the simplifications. Nothing derived is trusted: the chain rule view shows a
formula only when `evaluate` gives the gradient backward produced.
"""
from __future__ import annotations

import re

import numpy as np
import sympy
from sympy.printing.str import StrPrinter

from engine.explain.jacobian import close


class NotationError(Exception):
    """The graph holds a node this notation does not write; the per-element form is used instead."""


# --- the functions of the notation ------------------------------------------------------------------
class _TensorFunction(sympy.Function):
    is_commutative = True


class tsum(_TensorFunction):          # tsum(a) = a.sum()
    nargs = 1


class tmean(_TensorFunction):         # a.mean()
    nargs = 1


class tsumdim(_TensorFunction):       # tsumdim(a, (dims), keepdim) = a.sum(dims, keepdim=…)
    nargs = 3


class tmeandim(_TensorFunction):
    nargs = 3


class softmax(_TensorFunction):       # softmax(a, dim)
    nargs = 2


class matmul(_TensorFunction):        # matmul(a, b) = a @ b
    nargs = 2


class outer(_TensorFunction):         # outer(a, b) = torch.outer(a, b)
    nargs = 2


class mT(_TensorFunction):            # mT(a) = a.T (the last two axes swapped)
    nargs = 1


class reshape(_TensorFunction):       # reshape(a, (shape)) = a.reshape(shape)
    nargs = 2


class unsqueeze(_TensorFunction):     # unsqueeze(a, (dims)) = a.unsqueeze(dim)
    nargs = 2


class ones(_TensorFunction):          # ones((shape)) = torch.ones(shape)
    nargs = 1


class gt(_TensorFunction):            # gt(a, b) = (a > b), 1 or 0
    nargs = 2


class eq(_TensorFunction):            # eq(a, b) = (a == b), 1 or 0
    nargs = 2


class between(_TensorFunction):       # between(a, low, high) = (low <= a <= high); a bound of nan is open
    nargs = 3


class tnorm(_TensorFunction):         # tnorm(a) = a.norm()
    nargs = 1


class tclamp(_TensorFunction):        # tclamp(a, low, high) = a.clamp(low, high); a bound of nan is open
    nargs = 3


class tmaximum(_TensorFunction):      # torch.maximum(a, b)
    nargs = 2


class tmax(_TensorFunction):          # tmax(a) = a.max()
    nargs = 1


class tselect(_TensorFunction):       # tselect(a, dim, k) = a[k], a[:, k], …
    nargs = 3


class onehot(_TensorFunction):        # onehot(n, k, trailing) = torch.eye(n)[k], shaped (n, 1, …) with trailing 1s
    nargs = 3


class mask(_TensorFunction):          # mask(c) = c, a constant of 0s and 1s (torch.where's condition)
    nargs = 1


class twhere(_TensorFunction):        # twhere(c, a, b) = torch.where(c, a, b)
    nargs = 3


class texpand(_TensorFunction):       # texpand(a, (shape)) = a.expand(shape)
    nargs = 2


FUNCTIONS = (tsum, tmean, tsumdim, tmeandim, softmax, matmul, outer, mT, reshape, unsqueeze, ones, gt, eq,
             between, tnorm, tclamp, tmaximum, tmax, tselect, onehot, mask, twhere, texpand)
OPEN = sympy.nan  # an open clamp bound


def as_tuple(values) -> sympy.Tuple:
    """Integers as a sympy Tuple (dims and shapes inside a notation function)."""
    return sympy.Tuple(*(sympy.Integer(int(v)) for v in values))


def _ints(t) -> tuple[int, ...]:
    return tuple(int(v) for v in t)


# --- numbers: what a formula is at the program's values -------------------------------------------------
def evaluate(expr, env: dict, cache: dict | None = None):
    """The value of a tensor expression; env maps each symbol to a float64 array. Raises NotationError
    for anything outside the notation (then the formula is not shown)."""
    cache = {} if cache is None else cache
    if expr in cache:
        return cache[expr]
    value = _evaluate(expr, env, cache)
    cache[expr] = value
    return value


_ELEMENTWISE = {sympy.exp: np.exp, sympy.log: np.log, sympy.sin: np.sin, sympy.cos: np.cos, sympy.tanh: np.tanh,
                sympy.Abs: np.abs, sympy.sign: np.sign, sympy.tan: np.tan, sympy.sinh: np.sinh,
                sympy.cosh: np.cosh}


def _evaluate(e, env, cache):  # noqa: C901 - one case per kind of node
    ev = lambda a: evaluate(a, env, cache)  # noqa: E731
    with np.errstate(all="ignore"):
        if e.is_Symbol:
            if e not in env:
                raise NotationError(f"no value for {e}")
            return np.asarray(env[e], dtype=np.float64)
        if e is sympy.nan:
            return np.float64("nan")
        if e.is_Number:
            return np.float64(float(e))
        if e.is_Add:
            out = ev(e.args[0])
            for a in e.args[1:]:
                out = out + ev(a)
            return out
        if e.is_Mul:
            out = ev(e.args[0])
            for a in e.args[1:]:
                out = out * ev(a)
            return out
        if e.is_Pow:
            return np.power(ev(e.args[0]), ev(e.args[1]))
        func = e.func
        if func in _ELEMENTWISE:
            return _ELEMENTWISE[func](ev(e.args[0]))
        if func is tsum:
            return np.sum(ev(e.args[0]))
        if func is tmean:
            return np.mean(ev(e.args[0]))
        if func in (tsumdim, tmeandim):
            a = ev(e.args[0])
            dims = tuple(_dim(d, a) for d in _ints(e.args[1]))
            reduce = np.sum if func is tsumdim else np.mean
            return reduce(a, axis=dims, keepdims=bool(e.args[2]))
        if func is softmax:
            a, dim = ev(e.args[0]), int(e.args[1])
            z = np.exp(a - np.max(a, axis=dim, keepdims=True))
            return z / np.sum(z, axis=dim, keepdims=True)
        if func is matmul:
            return np.matmul(ev(e.args[0]), ev(e.args[1]))
        if func is outer:
            return np.multiply.outer(ev(e.args[0]), ev(e.args[1]))
        if func is mT:
            a = ev(e.args[0])
            return a if a.ndim < 2 else np.swapaxes(a, -1, -2)
        if func is reshape:
            return np.reshape(ev(e.args[0]), _ints(e.args[1]))
        if func is unsqueeze:
            return np.expand_dims(ev(e.args[0]), _ints(e.args[1]))
        if func is ones:
            return np.ones(_ints(e.args[0]))
        if func is texpand:
            return np.broadcast_to(ev(e.args[0]), _ints(e.args[1]))
        if func is gt:
            return (ev(e.args[0]) > ev(e.args[1])).astype(np.float64)
        if func is eq:
            return (ev(e.args[0]) == ev(e.args[1])).astype(np.float64)
        if func is between:
            a = ev(e.args[0])
            inside = np.ones(np.shape(a), dtype=bool)
            if e.args[1] is not sympy.nan:
                inside &= a >= ev(e.args[1])
            if e.args[2] is not sympy.nan:
                inside &= a <= ev(e.args[2])
            return inside.astype(np.float64)
        if func is tnorm:
            return np.sqrt(np.sum(ev(e.args[0]) ** 2))
        if func is tclamp:
            a = ev(e.args[0])
            low = None if e.args[1] is sympy.nan else ev(e.args[1])
            high = None if e.args[2] is sympy.nan else ev(e.args[2])
            return np.clip(a, low, high)
        if func is tmaximum:
            return np.maximum(ev(e.args[0]), ev(e.args[1]))
        if func is tmax:
            return np.max(ev(e.args[0]))
        if func is tselect:
            return np.take(ev(e.args[0]), int(e.args[2]), axis=int(e.args[1]))
        if func is mask:
            return ev(e.args[0])
        if func is twhere:
            return np.where(ev(e.args[0]) != 0, ev(e.args[1]), ev(e.args[2]))
        if func is onehot:
            n, k, trailing = (int(v) for v in e.args)
            return np.eye(n)[k].reshape((n,) + (1,) * trailing)
    raise NotationError(f"{func} is not part of the tensor notation")


def _dim(d: int, a: np.ndarray) -> int:
    """A dim of `a` as PyTorch reads it (from the end when negative; a 0-d tensor has dims 0 and -1), or
    NotationError: a formula is checked as PyTorch would run it."""
    n = max(a.ndim, 1)
    if not -n <= d < n:
        raise NotationError(f"dim {d} is out of range for {a.ndim} dims")
    return d % n


def shaped(expr, env: dict, shape):
    """The formula as a tensor of the gradient's own shape: `r.sum().expand(2, 1)` where r.sum() alone would
    be one number for a c of shape (2, 1) — x.grad always has x's shape, so a formula said to equal it must
    too. A plain number stays as it is (the same number in every entry, as one writes ∂(2x)/∂x = 2)."""
    shape = tuple(shape)
    if expr.is_Number or np.shape(evaluate(expr, env)) == shape:
        return expr
    return texpand(expr, as_tuple(shape))


def agrees(formula, env: dict, expected: np.ndarray, exact: bool = True) -> bool:
    """True when `formula` at the values `env` equals `expected`, as backward computed it (float32
    tolerances: the graph may have run in float32). `exact`: of expected's very shape too (a plain number
    stands for every entry); else broadcast to it, as a local factor multiplies element by element."""
    try:
        value = evaluate(formula, env)
        if exact and not sympy.sympify(formula).is_Number and np.shape(value) != np.shape(expected):
            return False
        value = np.broadcast_to(value, np.shape(expected))
    except (NotationError, ValueError, TypeError, ZeroDivisionError, OverflowError):
        return False
    return close(value, expected)


# --- text: how a formula reads --------------------------------------------------------------------------
class TensorPrinter(StrPrinter):
    """sympy's str form, with the notation's functions written as PyTorch code reads."""

    def _arg(self, e) -> str:
        text = self._print(e)
        if e.is_Symbol or e.is_Number and e >= 0 or isinstance(e, _TensorFunction) or e.is_Function:
            return text
        return f"({text})"

    def _dims(self, dims, keepdim) -> str:
        dims = _ints(dims)
        inner = str(dims[0]) if len(dims) == 1 else "(" + ", ".join(map(str, dims)) + ")"
        return inner + (", keepdim=True" if bool(keepdim) else "")

    def _print_tsum(self, e):
        return f"{self._arg(e.args[0])}.sum()"

    def _print_tmean(self, e):
        return f"{self._arg(e.args[0])}.mean()"

    def _print_tsumdim(self, e):
        return f"{self._arg(e.args[0])}.sum({self._dims(e.args[1], e.args[2])})"

    def _print_tmeandim(self, e):
        return f"{self._arg(e.args[0])}.mean({self._dims(e.args[1], e.args[2])})"

    def _print_softmax(self, e):
        return f"softmax({self._print(e.args[0])}, dim={int(e.args[1])})"

    def _print_matmul(self, e):  # always in parentheses: `@` binds like `*`, which sympy does not know
        return f"({self._arg(e.args[0])} @ {self._arg(e.args[1])})"

    def doprint(self, expr):
        text = super().doprint(expr)
        return text[1:-1] if getattr(expr, "func", None) is matmul else text

    def _print_outer(self, e):
        return f"torch.outer({self._print(e.args[0])}, {self._print(e.args[1])})"

    def _print_mT(self, e):
        return f"{self._arg(e.args[0])}.T"

    def _shape(self, shape) -> str:
        """A shape as reshape and torch.ones take it: `2, 3`, or `()` for a 0-d tensor (`reshape()` is no call)."""
        return ", ".join(map(str, _ints(shape))) or "()"

    def _print_reshape(self, e):
        return f"{self._arg(e.args[0])}.reshape({self._shape(e.args[1])})"

    def _print_unsqueeze(self, e):
        return "".join([self._arg(e.args[0])] + [f".unsqueeze({d})" for d in _ints(e.args[1])])

    def _print_texpand(self, e):
        return f"{self._arg(e.args[0])}.expand({self._shape(e.args[1])})"

    def _print_ones(self, e):
        return f"torch.ones({self._shape(e.args[0])})"

    def _print_gt(self, e):
        return f"({self._print(e.args[0])} > {self._print(e.args[1])})"

    def _print_eq(self, e):
        return f"({self._print(e.args[0])} == {self._print(e.args[1])})"

    def _print_between(self, e):
        a, low, high = e.args
        if low is sympy.nan:
            return f"({self._print(a)} <= {self._print(high)})"
        if high is sympy.nan:
            return f"({self._print(a)} >= {self._print(low)})"
        return f"(({self._print(a)} >= {self._print(low)}) & ({self._print(a)} <= {self._print(high)}))"

    def _print_tclamp(self, e):
        a, low, high = e.args
        bounds = ", ".join("None" if b is sympy.nan else self._print(b) for b in (low, high))
        return f"{self._arg(a)}.clamp({bounds})"

    def _print_tmaximum(self, e):
        return f"torch.maximum({self._print(e.args[0])}, {self._print(e.args[1])})"

    def _print_Abs(self, e):
        return f"abs({self._print(e.args[0])})"

    def _print_tnorm(self, e):
        return f"{self._arg(e.args[0])}.norm()"

    def _print_tmax(self, e):
        return f"{self._arg(e.args[0])}.max()"

    def _print_tselect(self, e):
        return f"{self._arg(e.args[0])}[{':, ' * int(e.args[1])}{int(e.args[2])}]"

    def _print_mask(self, e):  # a condition is booleans: in arithmetic (1 - c) PyTorch needs it as numbers
        c = e.args[0]
        if c.is_Number:
            return self._print(c)
        if c.is_Symbol and c.name.startswith("torch.tensor([") and ("True" in c.name or "False" in c.name):
            return c.name.replace("True", "1.").replace("False", "0.")   # a short condition written as its values
        return f"{self._arg(c)}.float()"

    def _print_twhere(self, e):
        c = e.args[0].args[0] if e.args[0].func is mask else e.args[0]   # torch.where takes the booleans
        condition = f"torch.tensor({bool(c)})" if c.is_Number else self._print(c)
        return f"torch.where({', '.join([condition] + [self._print(a) for a in e.args[1:]])})"

    def _print_onehot(self, e):
        n, k, trailing = (int(v) for v in e.args)
        return f"torch.eye({n})[{k}]" + (f".reshape({', '.join(map(str, (n,) + (1,) * trailing))})" if trailing else "")


_PRINTER = TensorPrinter()
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def text(expr) -> str:
    """A formula on one line: `2*x.sum()`, `x²/2`, `exp(x)/exp(x).sum()`."""
    return one_line(_PRINTER.doprint(expr))


def one_line(text: str) -> str:
    """sympy's str form as the articles write it: 6x², 2(inp + 1), x²/2, (x + 1)·exp(x)."""
    text = re.sub(r"\*\*(\d+)", lambda m: m.group(1).translate(_SUPERSCRIPT), text)
    text = re.sub(r"\*\*\((-?\d+)\)", lambda m: m.group(1).translate(_SUPERSCRIPT), text)
    text = text.replace("**", "^")
    # 2x and 2(x + 1), but 2·torch.ones(3), 2·layer.bias₁, 2·x.sum(): a dotted name after a number would read as one
    text = re.sub(r"(?<![\w.₀-₉⁰-⁹])(\d+)\*(?=[^\W\d]\w*+(?!\.)|\()", r"\1", text)
    return text.replace("*", "·")


# --- simplification -------------------------------------------------------------------------------------
def tidy(expr):
    """A readable, equivalent form: the shortest of the expression, its common factors pulled out and
    its factored form; constants as fractions. (sympy's full simplify is avoided: its trigonometric
    search takes seconds on tanh and rewrites 1 - tanh² as cosh⁻², which reads worse.)"""
    from engine.explain.symbolic import readable

    expr = expr.replace(lambda e: e.is_Pow and e.base.func in (gt, eq, between, mask) and e.exp.is_positive,
                        lambda e: e.base)  # a 0/1 mask squared is the mask
    return readable(select_form(expr))


def select_form(expr):
    """(torch.eye(n)[k] * a).sum() written a[k] (1-d a; the same numbers, checked with the formula)."""
    def rewrite(e):
        inner = e.args[0]
        factors = inner.args if inner.is_Mul else (inner,)
        picks = [f for f in factors if f.func is onehot and int(f.args[2]) == 0]
        if len(picks) != 1 or (e.func is tsumdim and _ints(e.args[1]) != (0,)):
            return e
        rest = sympy.Mul(*(f for f in factors if f is not picks[0]))
        return rest if rest.is_Number else tselect(rest, 0, picks[0].args[1])

    return expr.replace(lambda e: e.func in (tsum, tsumdim), rewrite)


def drop_matmul_reshapes(expr, env: dict):
    """x.reshape(1, 3) @ m … .reshape(2) is how a 1-d matmul is recorded; write it `x @ m` (same numbers)."""
    def one_d(e):
        try:
            return np.ndim(evaluate(e, env)) == 1
        except NotationError:
            return False

    def rewrite(e):
        inner = e.args[0]
        if inner.func is not matmul:
            return e
        a, b = inner.args
        if a.func is reshape and one_d(a.args[0]):
            a = a.args[0]
        if b.func is reshape and one_d(b.args[0]):
            b = b.args[0]
        candidate = matmul(a, b)
        try:
            same = np.shape(evaluate(candidate, env)) == tuple(_ints(e.args[1])) and np.allclose(
                evaluate(candidate, env), evaluate(e, env), equal_nan=True)
        except (NotationError, ValueError):
            same = False
        return candidate if same else e

    try:
        return expr.replace(lambda e: e.func is reshape, rewrite)
    except (TypeError, ValueError, AttributeError):
        return expr


def softmax_form(expr):
    """exp(x)/exp(x).sum() written as softmax(x, dim=0), for a 1-d x (the same numbers)."""
    def rewrite(e):
        if e.is_Mul:
            num = [a for a in e.args if a.func is sympy.exp]
            den = [a for a in e.args if a.is_Pow and a.args[1] == -1 and a.args[0].func is tsum
                   and a.args[0].args[0].func is sympy.exp]
            for n in num:
                for d in den:
                    if d.args[0].args[0] == n:
                        rest = [a for a in e.args if a is not n and a is not d]
                        return sympy.Mul(*rest, softmax(n.args[0], 0))
        return e

    return expr.replace(lambda e: e.is_Mul, rewrite)
