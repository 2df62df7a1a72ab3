"""The reverse sweep in tensor notation (`engine.explain.notation`): every node of a recorded graph as a
tensor expression of its inputs (`forward_expr`), then each cotangent as one (`vjp_expr`), from the root back to
the leaves. Element-wise nodes run the engine's own VJP rules on the expressions; the others are written here,
one case per op. `chain` checks every formula this gives at the program's values before it is shown.
"""
from __future__ import annotations

import numpy as np
import sympy

from engine.explain.notation import (
    OPEN,
    NotationError,
    as_tuple,
    between,
    eq,
    evaluate,
    gt,
    mask,
    matmul,
    mT,
    onehot,
    ones,
    outer,
    reshape,
    softmax,
    tclamp,
    tmax,
    tmaximum,
    tmean,
    tmeandim,
    tnorm,
    tselect,
    tsum,
    tsumdim,
    twhere,
    unsqueeze,
)
from engine.graph import AccumulateGrad, Node


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
        # dims counted from the end: the expression may have fewer axes than the shape it broadcasts to
        # (`c.sum(-1, keepdim=True)` for a c of shape (3,) standing for (2, 3); c.sum(1) is no PyTorch)
        end = len(value.shape)
        if summed_keep:
            expr = tsumdim(expr, as_tuple(d - end for d in summed_keep), sympy.true)
        if summed_lead:
            if len(summed_lead) == len(self.natural_shape(expr)):
                expr = tsum(expr)
            else:
                expr = tsumdim(expr, as_tuple(d - end for d in summed_lead), sympy.false)
        natural = tuple(self.natural_shape(expr))
        extra = len(natural) - len(shape)
        if extra > 0 and all(d == 1 for d in natural[:extra]):  # leading axes of 1 left: drop them
            expr = reshape(expr, as_tuple(natural[extra:]))
        return Value(expr * factor, shape)

    def full(self, value: Value):
        """The expression as a tensor of its whole shape (where a matrix product needs it)."""
        if tuple(self.natural_shape(value.expr)) == value.shape:
            return value.expr
        return value.expr * ones(as_tuple(value.shape))


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
        return (tsumdim if key == "sum_dim" else tmeandim)(a.expr, as_tuple(dims), sympy.true if attrs["keepdim"]
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
        return reshape(a.expr, as_tuple(np.shape(node.out)))
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
            expr = unsqueeze(sweep.full(g), as_tuple(sorted(dims)))
        if key == "mean_dim":
            expr = expr / int(np.prod([in_shape[d] for d in dims], dtype=np.int64))
        return Value(expr, in_shape)
    if key == "softmax":
        dim = attrs["dim"] % max(len(in_shape), 1)
        return Value(out * (g.expr - tsumdim(sweep.full(g) * out, as_tuple([dim]), sympy.true)), in_shape)
    if key == "log_softmax":
        dim = attrs["dim"] % max(len(in_shape), 1)
        return Value(g.expr - sympy.exp(out) * tsumdim(sweep.full(g), as_tuple([dim]), sympy.true), in_shape)
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
        return Value(reshape(sweep.full(g), as_tuple(in_shape)), in_shape)
    if key == "norm":
        return Value(g.expr * a.expr / out, in_shape)
    if key == "max":
        ties = eq(a.expr, out)
        return Value(g.expr * ties / tsum(ties), in_shape)
    if key == "select":
        dim, k = _selected(node)
        expr = g.expr if _is_scalar_like(sweep, g) else unsqueeze(sweep.full(g), as_tuple([dim]))
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
