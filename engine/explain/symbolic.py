"""The Jacobian with sympy: the engine's own rules run on arrays of symbols.

Each element of a leaf (and of every constant tensor the program named) becomes
a symbol — inp₁, inp₂ or tensor2₁₁, tensor2₁₂… — and the recorded graph is
replayed: each op's `forward` from `engine.ops` on object arrays, then
the engine's batched reverse `sweep` with one-hot cotangents, which applies the
very same VJP rules backward uses on numbers. No second set of derivatives.
Branches (relu, abs, max, clamp) are decided at the recorded values (`xp.at_point`).

The work is bounded: too many nodes or Jacobian entries, or more than `timeout`
seconds, and the result is a `SymbolicJacobian` with `ok=False` and a note.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from engine import xp
from engine.explain.replay import ops_of, replay
from engine.graph import AccumulateGrad, pullback
from engine.nn.hooks import HOOK_NODES
from engine.ops import OPS

MAX_NODES = 200
MAX_ENTRIES = 1024
SIMPLIFY_OPS = 12        # expressions up to this many operations get sympy's full simplify


class SymbolicLimit(Exception):
    """The symbolic work went over a bound; the message says which."""


_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def element_name(name: str, index: tuple) -> str:
    """inp₁ for a vector, t1₁₂ for a matrix (1-based, as the articles write them); t1₁,₁₂ past 9."""
    if not index:
        return name
    parts = [str(i + 1) for i in index]
    sep = "," if any(len(p) > 1 for p in parts) else ""
    return name + sep.join(parts).translate(_SUB)


def element_symbols(name: str, shape: tuple) -> np.ndarray:
    import sympy

    out = np.empty(shape, dtype=object)
    for index in np.ndindex(*shape):
        out[index] = sympy.Symbol(element_name(name, index), real=True)
    return out


def number(value):
    """A sympy number for a float: exact when it is a short fraction (0.5 → 1/2, float32 0.1 → 1/10); nan and
    ±inf as sympy's own (a constant holding them is still a constant: x * inf has the form oo*x)."""
    import sympy

    value = float(value)
    if not math.isfinite(value):
        return sympy.nan if math.isnan(value) else sympy.oo if value > 0 else -sympy.oo
    if value.is_integer():
        return sympy.Integer(int(value))
    fraction = Fraction(value).limit_denominator(10_000)
    if abs(float(fraction) - value) <= 1e-6 * max(1.0, abs(value)):
        return sympy.Rational(fraction.numerator, fraction.denominator)
    return sympy.Float(value)


def to_numbers(a):
    """Constants (arrays or Python scalars) as sympy numbers; other values (dtypes, keys) unchanged."""
    if isinstance(a, np.ndarray) and a.dtype.kind in "biuf":
        return np.vectorize(number, otypes=[object])(a) if a.size else a.astype(object)
    if isinstance(a, (bool, int, float)) and not isinstance(a, bool):
        return number(a)
    return a


def tidy(expr):
    """A readable form: 2*(x₁ + 1), t2₁₁/6, x**2/2; exact fractions for float constants."""
    return readable(expr)


def readable(expr):
    """The shortest of an expression, its common factors pulled out, its factored and its cancelled form
    (polynomial algebra only: sympy's full simplify spends seconds in trigonometric searches)."""
    import sympy

    expr = sympy.sympify(expr)
    if expr.has(sympy.Float):
        expr = sympy.nsimplify(expr, tolerance=1e-6, rational=True)
    if expr.is_number or expr.is_Symbol:
        return expr
    try:
        small = len(expr.free_symbols) <= 4 or sympy.count_ops(expr) <= SIMPLIFY_OPS
        if expr.is_rational_function():  # factoring many-variable polynomials takes seconds: only small ones
            return sympy.factor(expr) if small else sympy.factor_terms(expr)
        candidates = [expr, sympy.factor_terms(expr)]
        if small and sympy.count_ops(expr) <= 4 * SIMPLIFY_OPS:
            candidates += [sympy.factor(expr), sympy.factor_terms(sympy.cancel(expr))]
    except (TypeError, ValueError, AttributeError, RecursionError, NotImplementedError,
            sympy.PolynomialError):
        return expr
    return min(candidates, key=lambda e: (sympy.count_ops(e), len(str(e))))


@dataclass
class SymbolicLeaf:
    name: str
    shape: tuple
    symbols: np.ndarray          # object array shaped like the leaf
    jacobian: np.ndarray         # (m, n) object array of simplified entries
    substituted: np.ndarray      # (m, n) float64: the entries at the recorded values
    vjp: np.ndarray              # vᵀJ as expressions, shaped like the leaf
    verified: bool = False       # J and vᵀJ equal the engine's numbers at the call's values and nearby points
    point_only: bool = False     # it holds at the call's values only (a branch decided there): not shown


@dataclass
class SymbolicJacobian:
    ok: bool
    note: str = ""
    output: np.ndarray | None = None               # y as expressions, shaped like y
    leaves: list[SymbolicLeaf] = field(default_factory=list)
    values: dict = field(default_factory=dict)     # symbol -> recorded value
    seconds: float = 0.0
    chains: list = field(default_factory=list)     # chain.Chain per leaf (filled by explain_symbolic)
    note_key: str = ""                             # the note as a message key (engine.explain.messages)
    note_params: dict = field(default_factory=dict)


class Replay:
    """A symbolic replay of one recorded graph: symbols for leaves and named constants."""

    def __init__(self, nodes: list, names, *, deadline=None, cut: dict | None = None,
                 leaf_values: dict | None = None) -> None:
        self.values: dict = {}
        self.leaf_symbols: dict = {}
        self._named_constants: dict[int, np.ndarray] = {}
        self.names = names
        for edge in nodes:
            if type(edge) is AccumulateGrad:
                value = leaf_values[edge] if leaf_values and edge in leaf_values else _recorded_value(nodes, edge)
                self.leaf_symbols[edge] = self._symbols(names.leaf(edge), value)
        self.cut = {node: self._symbols(name, np.asarray(node.out)) for node, name in (cut or {}).items()}
        with xp.at_point(self.values):
            self.copies = replay(nodes, self.leaf_symbols, constant=self._constant, cut=self.cut,
                                 deadline=deadline)

    def _symbols(self, name: str, value: np.ndarray) -> np.ndarray:
        symbols = element_symbols(name, value.shape)
        for s, v in zip(symbols.flat, np.asarray(value, dtype=np.float64).flat):
            self.values[s] = float(v)
        return symbols

    def _constant(self, a):
        if isinstance(a, np.ndarray) and a.dtype.kind in "biuf":
            name = self.names.array(a)
            if name is not None:
                if id(a) not in self._named_constants:
                    self._named_constants[id(a)] = self._symbols(name, a)
                return self._named_constants[id(a)]
        return to_numbers(a)


def _recorded_value(nodes, edge) -> np.ndarray:
    from engine.explain.fdcheck import edge_value

    return edge_value(nodes, edge)


def _deadline(timeout: float):
    stop = time.perf_counter() + timeout

    def check():
        if time.perf_counter() > stop:
            raise SymbolicLimit(f"the symbolic form took longer than {timeout:g} s")

    return check


def symbolic_jacobian(nodes: list, names, out_shape: tuple, seed: np.ndarray, edges: list, *,
                      timeout: float = 2.0, max_nodes: int = MAX_NODES,
                      max_entries: int = MAX_ENTRIES, leaf_values: dict | None = None) -> SymbolicJacobian:
    """J = d vec(y)/d vec(x) for each leaf edge as simplified sympy entries (or a fallback note)."""
    import sympy

    started = time.perf_counter()
    m = int(np.prod(out_shape, dtype=np.int64))
    count = len(ops_of(nodes))
    entries = sum(m * e.variable._data.size for e in edges)
    if count > max_nodes:
        return _limit("limit_nodes", count=count, limit=max_nodes)
    if entries > max_entries:
        return _limit("limit_entries", count=entries, limit=max_entries)
    custom = next((n for n in ops_of(nodes) if n.op.custom), None)
    if custom is not None:
        if names.original(custom) in HOOK_NODES:   # not the learner's Function: a module's backward hooks
            return _limit("limit_module_hook")
        return _limit("limit_custom", node=custom.op.grad_fn)
    check = _deadline(timeout)
    try:
        rep = Replay(nodes, names, deadline=check, leaf_values=leaf_values)
        root = nodes[0]
        seeds = np.eye(m, dtype=int).astype(object).reshape((m,) + tuple(out_shape))
        output = rep.leaf_symbols[root] if type(root) is AccumulateGrad else rep.copies[root].out
        with xp.at_point(rep.values):
            pulled = pullback(rep.copies.get(root, root), seeds, edges, nbatch=1, retain_graph=True)
        cache: dict = {}

        def simplify(e):
            check()
            if e not in cache:
                cache[e] = tidy(e)
            return cache[e]

        v = to_numbers(np.asarray(seed, dtype=np.float64)).reshape(-1)
        leaves = []
        for edge, raw in zip(edges, pulled):
            shape = edge.variable._data.shape
            J = np.vectorize(simplify, otypes=[object])(raw.reshape(m, -1)) if raw.size else raw.reshape(m, 0)
            vjp = np.array([simplify(sympy.Add(*[v[i] * J[i, j] for i in range(m)])) for j in range(J.shape[1])],
                           dtype=object).reshape(shape)
            leaves.append(SymbolicLeaf(names.leaf(edge), shape, rep.leaf_symbols[edge], J,
                                       substitute(J, rep.values), vjp))
        output = np.vectorize(simplify, otypes=[object])(np.asarray(output, dtype=object))
    except SymbolicLimit:
        return _limit("limit_time", started, seconds=f"{timeout:g}")
    except (TypeError, ValueError, ZeroDivisionError, AttributeError) as error:  # an op sympy cannot express
        node = _failed_at(error)
        if node is None:
            return _limit("limit_unsupported_other", started)
        return _limit("limit_unsupported", started, op=_op_key(node))
    return SymbolicJacobian(True, "", output, leaves, rep.values, time.perf_counter() - started)


def _limit(key: str, started: float | None = None, **params) -> SymbolicJacobian:
    """No symbolic form, and why, as a message key (the panels word it in their language; `note` is English)."""
    from engine.explain.messages import t

    seconds = 0.0 if started is None else time.perf_counter() - started
    return SymbolicJacobian(False, t(key, "en", **params) + "; numbers only", seconds=seconds, note_key=key,
                            note_params=params)


def _failed_at(error: BaseException):
    """The graph node whose forward or rule raised (the innermost frame holding a `node`), or None."""
    from engine.graph import Node

    found, tb = None, error.__traceback__
    while tb is not None:
        node = tb.tb_frame.f_locals.get("node")
        if isinstance(node, Node):  # each op's nodes are a subclass named as PyTorch's
            found = node
        tb = tb.tb_next
    return found


def _op_key(node) -> str:
    """The op's name as a learner writes it (nll_loss, where), from the engine's table."""
    return next((key for key, op in OPS.items() if op is node.op), node.name())


def _float64(e, values: dict):
    """`e` evaluated in numpy float64, node by node (1/0 is inf, as backward's arithmetic has it); TypeError
    for a function numpy does not have under sympy's name."""
    if e.is_Symbol:
        return np.float64(values[e])
    if e.is_Number:
        return np.float64(float(e))
    args = [_float64(a, values) for a in e.args]
    if e.is_Add:
        return np.sum(args)
    if e.is_Mul:
        return np.prod(args)
    if e.is_Pow:
        return np.power(*args)
    function = getattr(np, type(e).__name__, None)
    if function is None:
        raise TypeError(f"no float64 form for {type(e).__name__}")
    return function(*args)


def substitute(exprs: np.ndarray, values: dict) -> np.ndarray:
    """The entries as float64 at the recorded values. An entry exact arithmetic makes an unsigned infinity
    (1/(2*sqrt(x)) at x = 0 is sympy's zoo, which float() refuses) is evaluated in float64 as backward
    computes it (inf there), so the form is still shown rather than said not to exist."""
    import sympy

    def value(e):
        e = sympy.sympify(e)
        try:
            return float(e.xreplace(values)) if e.free_symbols else float(e)
        except TypeError:
            with np.errstate(all="ignore"):
                return float(_float64(e, values))

    return np.vectorize(value, otypes=[np.float64])(exprs) if exprs.size else exprs.astype(np.float64)
