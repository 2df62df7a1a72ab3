"""Tensor notation: formulas such as `2*x.sum()`, `exp(x)/exp(x).sum()` or `v @ W.T`, derived and checked.

The chain rule view needs a formula for ∂y/∂x (or vᵀ∂y/∂x) that a learner can read and that is
true for every element. It is derived here by one reverse sweep over the recorded graph in which
every value is a *tensor expression*: a sympy expression whose symbols stand for whole tensors
(`x`, `W`, `v`), whose arithmetic is element-wise with broadcasting, and in which reductions,
products and shape changes are opaque functions (`tsum(x)` prints as `x.sum()`, `matmul(v, mT(W))`
as `v @ W.T`). Element-wise nodes run the engine's own VJP rules from `engine.ops` on these
expressions; nodes whose rule depends on shapes or on a branch (sums, means, matmul, softmax, relu,
abs, clamp…) are written here in the same notation, the branch kept as a function of the tensor
(`(x > 0)`, `sign(x)`) rather than decided at one point, so the formula holds for every element.

Nothing here is trusted: `evaluate` computes a formula with numpy at the program's values, and
the chain rule view shows a formula only when that equals the gradient backward produced.
"""
from __future__ import annotations

import re

import numpy as np
import sympy
from sympy.printing.str import StrPrinter

from engine.explain.jacobian import close
from engine.graph import AccumulateGrad, Node


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


FUNCTIONS = (tsum, tmean, tsumdim, tmeandim, softmax, matmul, outer, mT, reshape, unsqueeze, ones, gt, eq,
             between, tnorm, tclamp, tmaximum, tmax, tselect, onehot, mask, twhere)
OPEN = sympy.nan  # an open clamp bound


def _tuple(values) -> sympy.Tuple:
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
            dims = tuple(d % max(a.ndim, 1) for d in _ints(e.args[1]))
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


def agrees(formula, env: dict, expected: np.ndarray) -> bool:
    """True when `formula` at the values `env` equals `expected` (broadcast to its shape), as backward
    computed it (float32 tolerances: the graph may have run in float32)."""
    try:
        value = evaluate(formula, env)
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

    def _print_reshape(self, e):
        return f"{self._arg(e.args[0])}.reshape({', '.join(map(str, _ints(e.args[1])))})"

    def _print_unsqueeze(self, e):
        return "".join([self._arg(e.args[0])] + [f".unsqueeze({d})" for d in _ints(e.args[1])])

    def _print_ones(self, e):
        return f"torch.ones({', '.join(map(str, _ints(e.args[0])))})"

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

    def _print_mask(self, e):
        return self._print(e.args[0])

    def _print_twhere(self, e):
        return f"torch.where({', '.join(self._print(a) for a in e.args)})"

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
    text = re.sub(r"(?<![\w.₀-₉⁰-⁹])(\d+)\*(?=[^\W\d]|\()", r"\1", text)
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


# --- the sweep ------------------------------------------------------------------------------------------
class Value:
    """A tensor expression and the shape it stands for (an expression may be smaller: it broadcasts)."""

    __slots__ = ("expr", "shape")

    def __init__(self, expr, shape) -> None:
        self.expr, self.shape = expr, tuple(shape)


class Sweep:
    """Forward expressions of every node of a recorded graph, and the reverse sweep in the notation."""

    def __init__(self, nodes: list, env_symbols: dict, leaf_values: dict, constant_symbol, cut: dict | None = None):
        """env_symbols: {AccumulateGrad: Symbol}; leaf_values: {Symbol: array}; constant_symbol(array,
        elementwise) -> sympy expression for a constant input; cut: {Node: Symbol} (named intermediates)."""
        self.env = dict(leaf_values)
        self.cache: dict = {}
        self.forward: dict = {}
        self.constant_symbol = constant_symbol
        for edge, symbol in env_symbols.items():
            self.forward[edge] = Value(symbol, np.shape(leaf_values[symbol]))
        for node in reversed([n for n in nodes if isinstance(n, Node)]):
            inputs = self._inputs(node)
            if cut and node in cut:
                self.env[cut[node]] = np.asarray(node.out, dtype=np.float64)
                self.forward[node] = Value(cut[node], np.shape(node.out))
            else:
                self.forward[node] = Value(forward_expr(node, inputs, self.constant), np.shape(node.out))

    def constant(self, array, elementwise: bool = False):
        """A constant tensor the graph used (an input without grad, a mask), as a symbol with its value;
        `elementwise`: the node uses it element by element, so equal entries may be written as one number."""
        symbol = self.constant_symbol(array, elementwise)
        if symbol.is_Symbol and symbol not in self.env:
            self.env[symbol] = np.asarray(array, dtype=np.float64)
        elif symbol.func is mT and symbol.args[0] not in self.env:  # W.T: W's value is the transpose
            self.env[symbol.args[0]] = np.swapaxes(np.asarray(array, dtype=np.float64), -1, -2)
        return symbol

    def natural_shape(self, expr) -> tuple:
        return np.shape(evaluate(expr, self.env, self.cache))

    def _inputs(self, node) -> list:
        values = []
        elementwise = op_key(node) in _REUSED
        for i, array in enumerate(node.arrays):
            parent = node.parents[i] if i < len(node.parents) else None
            if parent is not None:
                values.append(self.forward[parent])
            elif isinstance(array, np.ndarray):
                values.append(Value(self.constant(array, elementwise), array.shape))
            else:
                values.append(array)  # a Python number or an attribute-like value
        return values

    def backward(self, root, seed: Value, check=None, stop: dict | None = None) -> dict:
        """{edge or node: Value of the cotangent arriving there} for every node the sweep reaches.

        `stop`: {node: Symbol}: what arrives at such a node is recorded as it is, then passed on as that
        symbol (∂y/∂d), so the formulas below it are written in terms of the gradient at d (segments)."""
        from engine.graph import topological

        grads: dict = {root: seed}
        arrived: dict = {}
        for node in topological(root):
            g = grads.pop(node, None)
            if g is None:
                continue
            arrived[node] = g
            if type(node) is AccumulateGrad:
                continue
            if stop and node in stop:
                g = Value(stop[node], g.shape)
            if check is not None:
                check()
            inputs = self._inputs(node)
            for i, parent in enumerate(node.parents):
                if parent is None:
                    continue
                gi = self.sum_to(vjp_expr(node, i, g, inputs, self), np.shape(node.arrays[i]))
                previous = grads.get(parent)
                grads[parent] = gi if previous is None else Value(previous.expr + gi.expr, gi.shape)
        return arrived

    def sum_to(self, value: Value, shape) -> Value:
        """Undo broadcasting: sum over the axes the value was broadcast along (constant axes multiply)."""
        shape = tuple(shape)
        if value.shape == shape:
            return value
        natural = self.natural_shape(value.expr)
        lead = len(value.shape) - len(shape)
        natural = (1,) * (len(value.shape) - len(natural)) + tuple(natural)
        expr, factor = value.expr, 1
        summed_lead, summed_keep = [], []
        for d in range(len(value.shape)):
            target = None if d < lead else shape[d - lead]
            if target is not None and target == value.shape[d]:
                continue
            if natural[d] == 1:
                factor *= value.shape[d]
            elif target is None:
                summed_lead.append(d)
            else:
                summed_keep.append(d)
        if summed_keep:
            expr = tsumdim(expr, _tuple(summed_keep), sympy.true)
        if summed_lead:
            if len(summed_lead) == len(self.natural_shape(expr)):
                expr = tsum(expr)
            else:
                expr = tsumdim(expr, _tuple(summed_lead), sympy.false)
        natural = tuple(self.natural_shape(expr))
        extra = len(natural) - len(shape)
        if extra > 0 and all(d == 1 for d in natural[:extra]):  # leading axes of 1 left: drop them
            expr = reshape(expr, _tuple(natural[extra:]))
        return Value(expr * factor, shape)

    def full(self, value: Value):
        """The expression as a tensor of its whole shape (where a matrix product needs it)."""
        if tuple(self.natural_shape(value.expr)) == value.shape:
            return value.expr
        return value.expr * ones(_tuple(value.shape))


def _is_scalar_like(sweep: Sweep, value: Value) -> bool:
    return int(np.prod(sweep.natural_shape(value.expr), dtype=np.int64)) == 1


# --- forward expressions ---------------------------------------------------------------------------------
_REUSED = {"add", "sub", "rsub", "mul", "div", "neg", "reciprocal", "pow", "pow_tensor", "rpow", "exp", "log",
           "sqrt", "sin", "cos", "tanh", "log1p", "alias", "clone", "to_copy"}
_SHAPE_OPS = {"view", "reshape_alias", "unsafe_view", "unsqueeze", "squeeze", "squeeze_dim", "squeeze_matmul"}


def op_key(node) -> str:
    from engine.ops import OPS

    for key, op in OPS.items():
        if op is node.op:
            return key
    raise NotationError(f"{node.name()} is not in the table")


def _obj(x):
    return np.array(x.expr if isinstance(x, Value) else x, dtype=object)


def _expr(result):
    result = np.asarray(result, dtype=object)
    if result.shape != ():
        raise NotationError("not an element-wise rule")
    value = result.item()
    return sympy.sympify(value)


def _number_or(x):
    return x.expr if isinstance(x, Value) else sympy.sympify(x)


def forward_expr(node, inputs: list, constant):  # noqa: C901 - one case per op
    """The node's output as a tensor expression of its inputs; constant(array) names a constant it uses."""
    key = op_key(node)
    a = inputs[0]
    attrs = node.attrs
    if key in _REUSED:
        args = [_obj(x) if isinstance(x, Value) else _scalar(x) for x in inputs]
        with np.errstate(all="ignore"):
            return _expr(node.op.forward(*args, **attrs))
    if key == "sigmoid":  # the table's rule negates a 0-d array, which numpy turns into a bare sympy number
        return 1 / (1 + sympy.exp(-a.expr))
    if key == "relu":
        return a.expr * gt(a.expr, 0)
    if key == "abs":
        return sympy.Abs(a.expr)
    if key == "sum":
        return tsum(a.expr)
    if key == "mean":
        return tmean(a.expr)
    if key in ("sum_dim", "mean_dim"):
        dims = attrs["dims"]
        dims = tuple(d % max(len(a.shape), 1) for d in ((dims,) if isinstance(dims, int) else dims))
        return (tsumdim if key == "sum_dim" else tmeandim)(a.expr, _tuple(dims), sympy.true if attrs["keepdim"]
                                                             else sympy.false)
    if key == "softmax":
        return softmax(a.expr, attrs["dim"] % max(len(a.shape), 1))
    if key == "log_softmax":
        return sympy.log(softmax(a.expr, attrs["dim"] % max(len(a.shape), 1)))
    if key in ("mm", "mv", "dot"):
        return _mm(a.expr, inputs[1].expr)
    if key == "t":
        return _t(a.expr) if len(a.shape) == 2 else a.expr
    if key == "transpose" and len(a.shape) == 2 and {attrs["dim0"] % 2, attrs["dim1"] % 2} == {0, 1}:
        return _t(a.expr)
    if key in _SHAPE_OPS:
        return reshape(a.expr, _tuple(np.shape(node.out)))
    if key == "expand":
        return a.expr
    if key == "norm":
        return tnorm(a.expr)
    if key == "clamp":
        low, high = _bounds(node)
        return tclamp(a.expr, OPEN if low is None else low, OPEN if high is None else high)
    if key == "maximum":
        return tmaximum(a.expr, inputs[1].expr)
    if key == "max":
        return tmax(a.expr)
    if key == "select":
        dim, k = _selected(node)
        return tselect(a.expr, dim, k)
    if key == "addmm":
        s, m1, m2 = inputs
        return attrs["beta"] * _number_or(s) + attrs["alpha"] * _mm(m1.expr, m2.expr)
    if key == "mse_loss":
        return _reduced((a.expr - _number_or(inputs[1])) ** 2, attrs["reduction"])
    if key == "where":
        return twhere(mask(constant(attrs["condition"])), _number_or(a), _number_or(inputs[1]))
    raise NotationError(f"{node.name()} has no tensor notation")


def _mm(a, b):
    """a @ b; a one-element matrix (a constant written as its number) is a factor: [[3]] @ B = 3·B."""
    return a * b if a.is_Number or b.is_Number else matmul(a, b)


def _t(a):
    """a.T, with a number left as it is and a.T.T written a."""
    return a if a.is_Number else a.args[0] if a.func is mT else mT(a)


def _selected(node) -> tuple[int, int]:
    """select's key, (:, …, k, :, …), as (dim, k)."""
    key = node.attrs["key"]
    dim = next(d for d, k in enumerate(key) if not isinstance(k, slice))
    return dim, int(key[dim])


def _reduced(expr, reduction: str):
    return expr if reduction == "none" else (tsum if reduction == "sum" else tmean)(expr)


def _bounds(node):
    low, high = node.attrs.get("low"), node.attrs.get("high")
    return (None if low is None else sympy.sympify(float(low)), None if high is None else sympy.sympify(float(high)))


def _scalar(x):
    if isinstance(x, (bool, np.bool_)):
        return x
    if isinstance(x, (int, np.integer)):
        return sympy.Integer(int(x))
    if isinstance(x, (float, np.floating)):
        from engine.explain.symbolic import number

        return number(x)
    return x


# --- cotangent expressions -------------------------------------------------------------------------------
def vjp_expr(node, i: int, g: Value, inputs: list, sweep: Sweep) -> Value:  # noqa: C901 - one case per op
    key = op_key(node)
    out_shape = tuple(np.shape(node.out))
    in_shape = tuple(np.shape(node.arrays[i]))
    out = sweep.forward[node].expr
    a = inputs[0]
    attrs = node.attrs
    if key in _REUSED:
        args = [_obj(x) if isinstance(x, Value) else _scalar(x) for x in inputs]
        with np.errstate(all="ignore"):
            gi = _expr(node.op.vjp[i](_obj(g), _obj(out), *args, **attrs))
        return Value(gi, np.broadcast_shapes(out_shape, *[x.shape for x in inputs if isinstance(x, Value)]))
    if key == "sigmoid":
        return Value(g.expr * out * (1 - out), out_shape)
    if key == "relu":
        return Value(g.expr * gt(a.expr, 0), out_shape)
    if key == "abs":
        return Value(g.expr * sympy.sign(a.expr), out_shape)
    if key == "clamp":
        low, high = _bounds(node)
        return Value(g.expr * between(a.expr, OPEN if low is None else low, OPEN if high is None else high), out_shape)
    if key == "maximum":
        b = inputs[1]
        this, that = (a, b) if i == 0 else (b, a)
        return Value(g.expr * (gt(this.expr, that.expr) + eq(a.expr, b.expr) / 2),
                     np.broadcast_shapes(a.shape, b.shape))
    if key in ("sum", "expand", "alias"):
        return Value(g.expr, in_shape if key != "expand" else out_shape)
    if key == "mean":
        return Value(g.expr / max(1, int(np.prod(in_shape, dtype=np.int64))), in_shape)
    if key in ("sum_dim", "mean_dim"):
        dims = attrs["dims"]
        dims = tuple(d % len(in_shape) for d in ((dims,) if isinstance(dims, int) else dims))
        expr = g.expr
        if not attrs["keepdim"] and not _is_scalar_like(sweep, g):
            expr = unsqueeze(sweep.full(g), _tuple(sorted(dims)))
        if key == "mean_dim":
            expr = expr / int(np.prod([in_shape[d] for d in dims], dtype=np.int64))
        return Value(expr, in_shape)
    if key == "softmax":
        dim = attrs["dim"] % max(len(in_shape), 1)
        return Value(out * (g.expr - tsumdim(sweep.full(g) * out, _tuple([dim]), sympy.true)), in_shape)
    if key == "log_softmax":
        dim = attrs["dim"] % max(len(in_shape), 1)
        return Value(g.expr - sympy.exp(out) * tsumdim(sweep.full(g), _tuple([dim]), sympy.true), in_shape)
    if key == "mm":
        b = inputs[1]
        gi = _mm(sweep.full(g), _t(b.expr)) if i == 0 else _mm(_t(a.expr), sweep.full(g))
        return Value(gi, in_shape)
    if key == "mv":
        v = inputs[1]
        return Value(outer(sweep.full(g), v.expr) if i == 0 else matmul(sweep.full(g), a.expr), in_shape)
    if key == "dot":
        other = inputs[1 - i]
        return Value(g.expr * other.expr, in_shape)
    if key == "t" or key == "transpose":
        if len(in_shape) < 2:
            return Value(g.expr, in_shape)
        return Value(g.expr if _is_scalar_like(sweep, g) else _t(g.expr), in_shape)
    if key in _SHAPE_OPS:
        if _is_scalar_like(sweep, g):
            return Value(g.expr, in_shape)
        return Value(reshape(sweep.full(g), _tuple(in_shape)), in_shape)
    if key == "norm":
        return Value(g.expr * a.expr / out, in_shape)
    if key == "max":
        ties = eq(a.expr, out)
        return Value(g.expr * ties / tsum(ties), in_shape)
    if key == "select":
        dim, k = _selected(node)
        expr = g.expr if _is_scalar_like(sweep, g) else unsqueeze(sweep.full(g), _tuple([dim]))
        return Value(expr * onehot(in_shape[dim], k, len(in_shape) - dim - 1), in_shape)
    if key == "addmm":
        s, m1, m2 = inputs
        if i == 0:
            return Value(g.expr * attrs["beta"], out_shape)
        gi = _mm(sweep.full(g), _t(m2.expr)) if i == 1 else _mm(_t(m1.expr), sweep.full(g))
        return Value(gi * attrs["alpha"], in_shape)
    if key == "mse_loss":
        b = inputs[1]
        shape = np.broadcast_shapes(a.shape, b.shape if isinstance(b, Value) else ())
        n = 1 if attrs["reduction"] != "mean" else max(1, int(np.prod(shape, dtype=np.int64)))
        gi = g.expr * 2 * (a.expr - _number_or(b)) / n
        return Value(gi if i == 0 else -gi, shape)
    if key == "where":
        condition = mask(sweep.constant(attrs["condition"]))
        shape = np.broadcast_shapes(out_shape, np.shape(attrs["condition"]))
        return Value(g.expr * (condition if i == 0 else 1 - condition), shape)
    raise NotationError(f"{node.name()} has no tensor notation")
