"""The chain rule, derived from the recorded graph and checked before it is shown.

∂z/∂x = ∂z/∂g · ∂g/∂x = 1/12 · 6x² = x²/2 is read off the graph backward recorded: the reverse sweep
runs once more, in tensor notation (`engine.explain.notation`), so each node contributes its local
rule and the cotangents compose exactly as backward composed them — a product of factors where
every node on the path is element-wise (or reduces to one number), the rule applied in tensor
notation where it is not (`v @ W.T`, `softmax(x)·(…)`). Tensors the program named (`g` in
`g = 2*x**3`) become their own symbols, so the factors read like the article. A weighted
`backward(v)` starts the sweep from v, so v appears in the formula.

Every formula is evaluated with numpy at the values the program had when backward ran and compared
with the gradient backward produced (and each intermediate cotangent with the engine's trace); a
formula that disagrees is never shown. Where no tensor formula is found or verified, the chain
carries the per-element form from the symbolic vᵀJ (`∂y/∂x₁ = …`), checked the same way.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy

from engine.explain import notation
from engine.explain.notation import NotationError, Sweep, Value
from engine.graph import Node

MAX_PATHS = 8
MAX_ELEMENTS = 12          # per-element lines shown when there is no tensor formula


@dataclass
class Segment:
    top: str                    # the named tensor this factor differentiates (z)
    bottom: str                 # with respect to (g)
    factors: list[tuple[str, str]] = field(default_factory=list)   # (grad_fn name, local factor)
    factor: str = ""            # their product, simplified


@dataclass
class ChainPath:
    nodes: list[str]            # grad_fn names from the output down
    segments: list[Segment]
    total: str                  # the product of the segments' factors, in the leaf's symbols


@dataclass
class Step:
    """The cotangent arriving at one node of the sweep, in tensor notation (checked against the trace)."""

    node: int                   # index in the call's graph
    label: str                  # MulBackward0 (g)
    formula: str


@dataclass
class Chain:
    leaf: str
    output: str
    ok: bool
    note: str = ""
    paths: list[ChainPath] = field(default_factory=list)   # when every factor is element-wise
    total: str = ""             # ∂y/∂x (or vᵀ∂y/∂x) in tensor notation, verified
    weight: str = ""            # "" for the implicit 1, else what v is called in the formula ("v", "2")
    steps: list[Step] = field(default_factory=list)        # the sweep, where the path is not element-wise
    elements: list[tuple[str, str]] = field(default_factory=list)   # per-element form: (element, formula)
    more_elements: int = 0
    verified: bool = False      # the total (or each element) equals backward's gradient at the call's values

    def lhs(self) -> str:
        output = self.output if self.output.isidentifier() else f"({self.output})"
        derivative = f"∂{output}/∂{self.leaf}"
        return derivative if not self.weight else f"{self.weight}ᵀ·{derivative}"

    def text(self) -> str:
        """∂z/∂x = ∂z/∂g · ∂g/∂x = 1/12 · 6*x**2 = x**2/2 (one line per path), or ∂y/∂x = total."""
        if not self.ok:
            return ""
        lines = []
        if self.paths:
            several = len(self.paths) > 1  # then a line is one path's share, marked ①, ②…, not ∂y/∂x itself
            for k, path in enumerate(self.paths):
                parts = [f"∂{s.top}/∂{s.bottom}" for s in path.segments]
                factors = [_paren(s.factor) for s in path.segments]
                if self.weight:
                    parts.insert(0, self.weight)
                    factors.insert(0, self.weight)
                line = path_mark(k) if several else self.lhs()
                if len(parts) > 1:
                    line += " = " + " · ".join(parts) + " = " + " · ".join(factors)
                lines.append(line + f" = {path.total}")
            if not several and self.total != self.paths[0].total:
                lines[-1] += f" = {self.total}"
            if several:
                marks = " + ".join(path_mark(k) for k in range(len(self.paths)))
                lines.append(f"{self.lhs()} = {marks} = {self.total}")
        elif self.total:
            lines.append(f"{self.lhs()} = {self.total}")
        else:
            lines += [f"{lhs} = {rhs}" for lhs, rhs in self.elements]
        return "\n".join(lines)


def path_mark(k: int) -> str:
    """①, ②, … for path k (0-based), as the path tables are headed; (21) and so on past ⑳."""
    return chr(0x2460 + k) if k < 20 else f"({k + 1})"


def _paren(text: str) -> str:
    return f"({text})" if any(c in text for c in "+-") and not text.startswith("(") else text


def paths_to(root, edge) -> list[list[tuple]]:
    """Every path root → edge as [(node, input index), …]; at most MAX_PATHS + 1 of them."""
    found: list = []

    def walk(node, trail):
        if len(found) > MAX_PATHS:
            return
        for i, parent in enumerate(node.parents):
            if parent is edge:
                found.append(trail + [(node, i)])
            elif type(parent) is Node:
                walk(parent, trail + [(node, i)])

    if type(root) is Node:
        walk(root, [])
    return found


# --- symbols for the program's tensors ------------------------------------------------------------
class Symbols:
    """Tensor symbols named as the program names them, with the values they had at the backward call."""

    def __init__(self, call, names, leaf_values: dict) -> None:
        self.names = names
        self.values: dict = {}
        self.edges: dict = {}
        for edge, value in leaf_values.items():
            symbol = sympy.Symbol(names.leaf(edge), real=True)
            self.edges[edge] = symbol
            self.values[symbol] = np.asarray(value, dtype=np.float64)
        self._literal = 0

    def constant(self, array):
        name = self.names.array(array) or self.names.equal_tensor(array)
        if name is not None:
            return sympy.Symbol(name, real=True)
        if np.ndim(array) == 2 and self.names.equal_tensor(array.T):  # a frozen weight's W.T in nn.Linear
            return notation.mT(sympy.Symbol(self.names.equal_tensor(array.T), real=True))
        if array.size == 1:
            from engine.explain.symbolic import number

            return number(array.reshape(-1)[0])
        flat = np.asarray(array, dtype=np.float64)
        if flat.size <= 4 and flat.ndim == 1:
            from engine.explain.render import number

            return sympy.Symbol("[" + ", ".join(number(v) for v in flat) + "]", real=True)
        self._literal += 1
        return sympy.Symbol(f"c{'' if self._literal == 1 else self._literal}", real=True)

    def seed(self, call, used: set) -> tuple[Value, str]:
        """The cotangent backward started from, as a notation value, and how the formula calls it."""
        seed = np.asarray(call.seed, dtype=np.float64)
        shape = seed.shape
        if seed.size and np.all(seed == seed.reshape(-1)[0]):
            from engine.explain.symbolic import number

            value = number(seed.reshape(-1)[0])
            return Value(value, shape), ("" if value == 1 else str(value))
        name = self.names.equal_tensor(call.gradient) if call.gradient is not None else None
        if name is None or not name.isidentifier():
            name = next(n for n in ("v", "v_", "v__", "vv") if n not in used)
        symbol = sympy.Symbol(name, real=True)
        self.values[symbol] = seed
        return Value(symbol, shape), name


def chain_rule(call, edge, *, check=None, symbolic=None) -> Chain:
    """The chain rule for the gradient of the call's output w.r.t. the leaf behind `edge`, verified."""
    names = call.names
    nodes = call.nodes
    leaf_name = names.leaf(edge)
    output = call.output_name
    root = nodes[0]
    leaf = next(le for le in call.leaves if le.name == leaf_name)
    paths = paths_to(root, edge)
    if root is edge:
        return _itself(call, edge, leaf)
    if not paths:
        return Chain(leaf_name, output, False, "no_dependence")
    chain = Chain(leaf_name, output, True)
    try:
        _derive(chain, call, edge, paths, leaf.contribution, check)
    except (NotationError, ValueError, TypeError, ZeroDivisionError, AttributeError, KeyError, IndexError,
            RecursionError, NotImplementedError):
        chain.total, chain.paths, chain.steps = "", [], []
    if not chain.total:
        _per_element(chain, symbolic, leaf)
    if not chain.total and not chain.elements:
        chain.ok, chain.note = False, "no_formula"
    return chain


def _itself(call, edge, leaf) -> Chain:
    """backward on the leaf itself: ∂x/∂x is the identity, so the gradient is v."""
    chain = Chain(leaf.name, call.output_name, True)
    symbols = Symbols(call, call.names, call.leaf_values)
    seed, chain.weight = symbols.seed(call, set(call.names.used()))
    if notation.agrees(seed.expr, symbols.values, leaf.contribution):
        chain.total, chain.verified = notation._PRINTER.doprint(seed.expr), True
    else:
        chain.ok, chain.note = False, "no_formula"
    return chain


def _derive(chain: Chain, call, edge, paths, gradient, check) -> None:
    nodes, names = call.nodes, call.names
    root = nodes[0]
    leaf_values = {e: v for e, v in call.leaf_values.items()}
    symbols = Symbols(call, names, leaf_values)
    used = set(names.used()) | {str(s) for s in symbols.values}
    seed, chain.weight = symbols.seed(call, used)
    full = Sweep(nodes, symbols.edges, symbols.values, symbols.constant)
    arrived = full.backward(root, seed, check=check)
    total = notation.drop_matmul_reshapes(notation.tidy(arrived[edge].expr), full.env)
    total_1d = notation.softmax_form(total) if len(np.shape(gradient)) == 1 else total
    if notation.agrees(total_1d, full.env, gradient):
        total = total_1d
    if not notation.agrees(total, full.env, gradient):
        return  # never shown: the per-element form is used instead
    chain.total = notation._PRINTER.doprint(total)
    chain.verified = True
    chain.paths = _multiplicative_paths(call, edge, paths, symbols, seed, full, gradient, check)
    if not chain.paths:
        chain.steps = _steps(call, edge, paths, full, arrived)


def _steps(call, edge, paths, full: Sweep, arrived: dict) -> list[Step]:
    """The cotangent arriving at each node on the way to the leaf, checked against the engine's trace."""
    on_path = {node for path in paths for node, _ in path} | {edge}
    index = {node: k for k, node in enumerate(call.nodes)}
    incoming = {step.node: step.incoming for step in call.trace}
    steps = []
    for node in call.nodes:
        if node not in on_path or node not in arrived:
            continue
        k = index[node]
        expr = notation.drop_matmul_reshapes(notation.tidy(arrived[node].expr), full.env)
        if k not in incoming or not notation.agrees(expr, full.env, incoming[k]):
            return []
        label = call.graph[k].name + (f" ({call.graph[k].tensor})" if call.graph[k].tensor else "")
        steps.append(Step(k, label, notation._PRINTER.doprint(expr)))
    return steps


def _multiplicative_paths(call, edge, paths, symbols, seed, full: Sweep, gradient, check) -> list[ChainPath]:
    """Per path, the product of local factors (each node's rule is g·factor), segmented at named tensors;
    [] when some node on some path is not element-wise. The paths' totals must add up to the gradient."""
    names = call.names
    leaf_name = names.leaf(edge)
    root = call.nodes[0]
    on_path = {node for path in paths for node, _ in path}
    cut = {}
    for node in on_path:
        name = names.node(node)
        if node is not root and name not in (None, leaf_name, call.output_name) and name.isidentifier():
            cut[node] = sympy.Symbol(name, real=True)
    named = Sweep(call.nodes, symbols.edges, symbols.values, symbols.constant, cut=cut)
    placeholder = sympy.Dummy("g", real=True)
    back = {symbol: full.forward[node].expr for node, symbol in cut.items()}
    result, totals = [], []
    for path in paths:
        factors = []
        for node, i in path:
            if check is not None:
                check()
            out_shape = tuple(np.shape(node.out))
            named.env[placeholder] = np.ones(out_shape)
            named.cache.clear()
            value = notation.vjp_expr(node, i, Value(placeholder, out_shape), named._inputs(node), named)
            in_shape = tuple(np.shape(node.arrays[i]))
            if value.shape != in_shape and out_shape != ():
                return []  # a broadcast is undone here: not a per-element factor
            factor = sympy.cancel(value.expr / placeholder)
            if factor.has(placeholder):
                return []
            factors.append((node, notation.tidy(factor)))
        segments, current, product = [], Segment(call.output_name, ""), sympy.Integer(1)
        for (node, i), (_, factor) in zip(path, factors):
            current.factors.append((node.name(), notation._PRINTER.doprint(factor)))
            product *= factor
            below = node.parents[i]
            name = leaf_name if below is edge else (str(cut[below]) if below in cut else None)
            if name is not None:
                current.bottom, current.factor = name, notation._PRINTER.doprint(notation.tidy(product))
                segments.append(current)
                current, product = Segment(name, ""), sympy.Integer(1)
        path_total = seed.expr
        for _, factor in factors:
            path_total *= factor
        for _ in range(len(back) + 1):
            path_total = path_total.xreplace(back)
        totals.append(notation.tidy(path_total))
        result.append(ChainPath([n.name() for n, _ in path], segments, notation._PRINTER.doprint(totals[-1])))
    if not notation.agrees(sympy.Add(*totals), full.env, gradient):
        return []
    if any(not path.segments or not all(s.factor for s in path.segments) for path in result):
        return []
    return result


def _per_element(chain: Chain, symbolic, leaf) -> None:
    """∂y/∂x₁ = … from the symbolic vᵀJ, each element checked against backward's gradient."""
    symbolic_leaf, values = symbolic or (None, None)
    if symbolic_leaf is None:
        return
    from engine.explain.symbolic import element_name, substitute

    exprs = np.asarray(symbolic_leaf.vjp, dtype=object)
    try:
        values = substitute(exprs.reshape(-1), values)
    except (TypeError, ValueError, ZeroDivisionError):
        return
    expected = np.asarray(leaf.contribution, dtype=np.float64).reshape(-1)
    if not notation.close(values, expected):
        return
    lhs_base = f"∂{chain.output}/∂" if not chain.weight else f"{chain.weight}ᵀ·∂{chain.output}/∂"
    shape = tuple(np.shape(leaf.contribution))
    for k, index in enumerate(np.ndindex(*shape) if shape else [()]):
        if k >= MAX_ELEMENTS:
            chain.more_elements = exprs.size - MAX_ELEMENTS
            break
        chain.elements.append((lhs_base + element_name(chain.leaf, index), str(exprs.reshape(-1)[k])))
    chain.verified = True
