"""The chain rule, derived from the recorded graph and checked before it is shown.

∂z/∂x = ∂z/∂g · ∂g/∂x = 1/12 · 6x² = x²/2 is read off the graph backward recorded: the reverse sweep
runs once more, in tensor notation (`engine.explain.notation`), so each node contributes its local
rule and the cotangents compose exactly as backward composed them — a product of factors where
every node on the path is element-wise (or reduces to one number), the rule applied in tensor
notation where it is not (`v @ W.T`, `softmax(x)·(…)`). Tensors the program named (`g` in
`g = 2*x**3`) become their own symbols, so the factors read like the article. A weighted
`backward(v)` starts the sweep from v, so v appears in the formula.

Every formula (the total, each path's share, each local factor and segment, each step) is evaluated
with numpy at the values the program had when backward ran AND with the leaves moved (`replay.points`:
constants and the weight held, named intermediates replayed), and compared with what the engine's own
sweep gives there; a formula that disagrees anywhere is never shown, so one that matches the call's
values by coincidence cannot pass. Tensors are named by identity (`record.Names`), never by value.
Where no tensor formula is found or verified, the chain carries the per-element form from the
symbolic vᵀJ (`∂y/∂x₁ = …`), checked the same way.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy

from engine.explain import notation
from engine.explain.notation import NotationError
from engine.explain.notation_sweep import Sweep, Value, vjp_expr
from engine.graph import Node

MAX_PATHS = 8
MAX_ELEMENTS = 12          # per-element lines shown when there is no tensor formula
LINE = 76                  # a total longer than one panel line is written with the program's named results
SEGMENTED_AFTER = 3 * LINE  # a total longer than ~3 lines at 80 columns is shown in segments at those names


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
                                # and at nearby points (`replay.points`)
    named: list[str] = field(default_factory=list)    # the program's intermediate results the total is written in
    constants: list[tuple[str, np.ndarray]] = field(default_factory=list)  # c₁ = …: constants the formulas use
    hook_changed: bool = False  # hooks changed x.grad: the formula is the function's gradient, vᵀJ
    segments: list[tuple[str, str]] = field(default_factory=list)   # (∂y/∂d, formula) from the output down,
                                # each in terms of those above it: shown instead of a long total

    def lhs(self) -> str:
        output = self.output if self.output.isidentifier() else f"({self.output})"
        derivative = f"∂{output}/∂{self.leaf}"
        return derivative if not self.weight else f"{self.weight}ᵀ·{derivative}"

    def text(self, shown=str) -> str:
        """∂z/∂x = ∂z/∂g · ∂g/∂x = 1/12 · 6*x**2 = x**2/2 (one line per path), or ∂y/∂x = total. `shown` writes
        each formula (the panels pass `notation.one_line`: x²/2); the left-hand sides name the output as the
        program wrote it, `∂((x*2).sum())/∂x`, never rewritten as a formula is."""
        if not self.ok:
            return ""
        lines = []
        if self.paths:
            several = len(self.paths) > 1  # then a line is one path's share, marked ①, ②…, not ∂y/∂x itself
            for k, path in enumerate(self.paths):
                parts = [f"∂{s.top}/∂{s.bottom}" for s in path.segments]
                factors = [_paren(shown(s.factor)) for s in path.segments]
                if self.weight:
                    parts.insert(0, self.weight)
                    factors.insert(0, self.weight)
                line = path_mark(k) if several else self.lhs()
                if len(parts) > 1 and not several:
                    line += " = " + " · ".join(parts) + " = " + " · ".join(factors)
                elif len(parts) > 1:  # ∂z/∂g · ∂g/∂x would be the whole derivative, not this path's share
                    line += " = " + " · ".join(factors)
                lines.append(line + f" = {shown(path.total)}")
            if not several and self.total != self.paths[0].total:
                lines[-1] += f" = {shown(self.total)}"
            if several:
                marks = " + ".join(path_mark(k) for k in range(len(self.paths)))
                lines.append(f"{self.lhs()} = {marks} = {shown(self.total)}")
        elif self.segments:
            lines += [f"{lhs} = {shown(formula)}" for lhs, formula in self.segments]
        elif self.total:
            lines.append(f"{self.lhs()} = {shown(self.total)}")
        else:
            lines += [f"{lhs} = {shown(rhs)}" for lhs, rhs in self.elements]
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
            elif isinstance(parent, Node):
                walk(parent, trail + [(node, i)])

    if isinstance(root, Node):
        walk(root, [])
    return found


# --- symbols for the program's tensors ------------------------------------------------------------
_SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def tensor_literal(array: np.ndarray) -> str | None:
    """A short constant as PyTorch code that makes exactly it, `torch.tensor([1., 0.5, 2.])` (a condition of
    booleans `torch.tensor([True, False])`); None when its shown numbers would not give it back (1/3, -0.0,
    inf or nan: then it is c₁, its value shown beside the formula)."""
    from engine.explain.matrices import number

    if array.dtype == bool:
        return "torch.tensor([" + ", ".join(str(bool(v)) for v in array) + "])"
    texts = []
    for v in array.astype(np.float64):
        text = number(v)
        if not np.isfinite(v) or (v == 0 and np.signbit(v)) or np.asarray(float(text), array.dtype) != v:
            return None
        texts.append(text if any(c in text for c in ".e") else text + ".")
    return "torch.tensor([" + ", ".join(texts) + "])"


class Symbols:
    """Tensor symbols named as the program names them — by identity, never by value — with the values
    they had at the backward call. A constant the program did not name is written by its value when it
    is short, else as c₁, c₂ … (never a program name: `c₁` is no Python identifier), defined beside the
    formula (`constants`)."""

    def __init__(self, call, names, leaf_values: dict) -> None:
        self.names = names
        self.values: dict = {}
        self.edges: dict = {}
        for edge, value in leaf_values.items():
            symbol = sympy.Symbol(names.leaf(edge), real=True)
            self.edges[edge] = symbol
            self.values[symbol] = np.asarray(value, dtype=np.float64)
        self.taken = {str(s) for s in self.edges.values()} | {
            name for node in call.nodes if (name := names.node(node)) is not None}
        self._unnamed: dict[int, object] = {}
        self._keep: list = []
        self.constants: list[tuple[str, np.ndarray]] = []   # (c₁, its value), in the order they appear

    def constant(self, array, elementwise: bool = False):
        """The program's name for this very array, else its value: a number when it has one entry (or, used
        element by element, when its entries are all equal: the 1/3 of a mean in a backward graph), a short
        list, or c₁ defined beside the formula."""
        leaves = {str(s) for s in self.edges.values()}
        name = self.names.array(array, leaves)
        if name is not None:
            return sympy.Symbol(name, real=True)
        name = self.names.transposed(array, leaves)
        if name is not None:  # a frozen weight's W.T in nn.Linear
            return notation.mT(sympy.Symbol(name, real=True))
        flat = np.asarray(array, dtype=np.float64)
        if flat.size == 1 or (elementwise and flat.size and np.all(flat == flat.reshape(-1)[0])):
            from engine.explain.symbolic import number

            return number(flat.reshape(-1)[0])
        literal = tensor_literal(np.asarray(array)) if flat.size <= 4 and flat.ndim == 1 else None
        if literal is not None:
            return sympy.Symbol(literal, real=True)
        key = id(self.names._origin.get(id(array), array))
        if key not in self._unnamed:
            self._keep.append(array)
            symbol = sympy.Symbol("c" + str(len(self._unnamed) + 1).translate(_SUBSCRIPT), real=True)
            self._unnamed[key] = symbol
            self.constants.append((str(symbol), np.array(array)))   # a condition stays booleans (torch.where)
        return self._unnamed[key]

    def seed(self, call, used: set) -> tuple[Value, str]:
        """The cotangent backward started from, as a notation value, and how the formula calls it: the name
        the program passed (`v` in `s.backward(v)`), else v (when that name is free). A one-entry seed is its
        number (the implicit 1 is not written); a weight of several entries is always v, even all ones:
        `x.T @ torch.ones(2, 2)` is vᵀ·∂y/∂W, not ∂y/∂W (the Jacobian itself)."""
        seed = np.asarray(call.sweep_seed, dtype=np.float64)
        shape = seed.shape
        if seed.size == 1:
            from engine.explain.symbolic import number

            value = number(seed.reshape(-1)[0])
            return Value(value, shape), ("" if value == 1 else str(value))
        name = getattr(call, "weight", None)
        if name is None or name in self.taken or not all(part.isidentifier() for part in name.split(".")):
            name = next(n for n in ("v", "v_", "v__", "vv") if n not in used)
        symbol = sympy.Symbol(name, real=True)
        self.values[symbol] = seed
        return Value(symbol, shape), name


class Where:
    """Where a formula is checked: the call's values and the nearby points (`replay.points`), the leaves'
    symbols taking each point's values, named intermediates (`cut`) the values replayed there."""

    def __init__(self, points: list, edges: dict) -> None:
        self.points, self.edges = points, edges

    def envs(self, env: dict, cut: dict | None = None, grads: dict | None = None) -> list[dict]:
        found = []
        for point in self.points:
            here = dict(env)
            here.update({symbol: point.leaves[edge] for edge, symbol in self.edges.items()})
            here.update({symbol: np.asarray(point.out(node), dtype=np.float64) for node, symbol in (cut or {}).items()})
            here.update({symbol: np.broadcast_to(np.asarray(point.arrived[node], dtype=np.float64),
                                                 np.shape(point.out(node))) for node, symbol in (grads or {}).items()})
            found.append(here)
        return found

    def agrees(self, formula, env: dict, expected: list, cut: dict | None = None, grads: dict | None = None,
               exact: bool = True) -> bool:
        """True when the formula gives `expected[k]` at point k, for every point (and there are points): of its
        shape too unless not `exact` (a local factor, multiplied element by element).
        `grads`: {node: Symbol} standing for the gradient arriving at node, at each point's value."""
        return bool(self.points) and all(notation.agrees(formula, here, want, exact)
                                         for here, want in zip(self.envs(env, cut, grads), expected, strict=True))


def nearby(call) -> list:
    """The call's graph replayed at its values and at nearby points; [] when it cannot be replayed (then no
    formula is shown)."""
    from engine.explain.replay import points

    try:
        return points(call.nodes, call.leaf_values, call.sweep_seed)
    except Exception:  # noqa: BLE001 - a custom Function's forward is the learner's code: any error means no check
        return []


def chain_rule(call, edge, *, check=None, symbolic=None, points=None) -> Chain:
    """The chain rule for the gradient of the call's output w.r.t. the leaf behind `edge`, verified at the
    call's values and at nearby points (`points`, from `nearby(call)` when not given)."""
    names = call.names
    nodes = call.nodes
    leaf_name = names.leaf(edge)
    output = call.output_name
    root = nodes[0]
    leaf = next(le for le in call.leaves if le.name == leaf_name)
    if call.batched:  # the call returned J itself: the Jacobian tab explains and checks it
        return Chain(leaf_name, output, False, "jacobian")
    points = nearby(call) if points is None else points
    paths = paths_to(root, edge)
    if root is edge:
        chain = _itself(call, edge, leaf, points)
    elif not paths:
        return Chain(leaf_name, output, False, "no_dependence")
    else:
        chain = Chain(leaf_name, output, True)
        try:
            _derive(chain, call, edge, paths, points, check)
        except (NotationError, ValueError, TypeError, ZeroDivisionError, AttributeError, KeyError, IndexError,
                RecursionError, NotImplementedError):
            chain.total, chain.paths, chain.steps, chain.named, chain.constants = "", [], [], [], []
        if not chain.total:
            _per_element(chain, symbolic, leaf)
        if not chain.total and not chain.elements:
            chain.ok, chain.note = False, "no_formula"
    if chain.verified and points and call.hooked:
        chain.hook_changed = not notation.close(points[0].grad(edge), leaf.contribution)
    return chain


def _itself(call, edge, leaf, points) -> Chain:
    """backward on the leaf itself: ∂x/∂x is the identity, so the gradient is v."""
    chain = Chain(leaf.name, call.output_name, True)
    symbols = Symbols(call, call.names, call.leaf_values)
    seed, chain.weight = symbols.seed(call, set(call.names.used()))
    total = notation.shaped(seed.expr, symbols.values, np.shape(leaf.contribution))
    if Where(points, symbols.edges).agrees(total, symbols.values, [p.grad(edge) for p in points]):
        chain.total, chain.verified = notation._PRINTER.doprint(total), True
    else:
        chain.ok, chain.note = False, "no_formula"
    return chain


def _named(call, edge, paths, *, output: bool = False) -> dict:
    """{node: Symbol} for the nodes on the paths whose result the program named (`g` in `g = 2*x**3`); with
    `output`, the output too (`s` in a total written `(v - (v·s).sum())·s`)."""
    leaf_name = call.names.leaf(edge)
    root = call.nodes[0]
    cut = {}
    for node in {node for path in paths for node, _ in path}:
        name = call.names.node(node)
        if name is None or name == leaf_name or not name.isidentifier():
            continue
        if node is not root and name != call.output_name or node is root and output:
            cut[node] = sympy.Symbol(name, real=True)
    return cut


def _derive(chain: Chain, call, edge, paths, points, check) -> None:
    nodes, names = call.nodes, call.names
    root = nodes[0]
    symbols = Symbols(call, names, call.leaf_values)
    used = set(names.used()) | {str(s) for s in symbols.values}
    seed, chain.weight = symbols.seed(call, used)
    where = Where(points, symbols.edges)
    grads = [p.grad(edge) for p in points]
    full = Sweep(nodes, symbols.edges, symbols.values, symbols.constant)
    arrived = full.backward(root, seed, check=check)
    shape = np.shape(call.leaf_values[edge])
    total = notation.shaped(notation.drop_matmul_reshapes(notation.tidy(arrived[edge].expr), full.env), full.env, shape)
    if len(np.shape(grads[0]) if grads else ()) == 1:
        total_1d = notation.softmax_form(total)
        if where.agrees(total_1d, full.env, grads):
            total = total_1d
    if not where.agrees(total, full.env, grads):
        return  # never shown: the per-element form is used instead
    sweep, cut = full, {}
    named_cut = _named(call, edge, paths, output=True)
    expanded = len(notation.text(total))
    if named_cut and expanded > LINE // 2:  # long in the leaves: try the program's own names
        named = Sweep(nodes, symbols.edges, symbols.values, symbols.constant, cut=named_cut)
        named_arrived = named.backward(root, seed, check=check)
        short = notation.shaped(notation.drop_matmul_reshapes(notation.tidy(named_arrived[edge].expr), named.env),
                                named.env, shape)
        shorter = len(notation.text(short)) < (expanded if expanded > LINE else 0.8 * expanded)
        if shorter and where.agrees(short, named.env, grads, named_cut):
            total, sweep, arrived, cut = short, named, named_arrived, named_cut
            chain.named = sorted(str(s) for s in cut.values() if s in total.free_symbols)
    chain.total = notation._PRINTER.doprint(total)
    chain.verified = True
    chain.paths = _multiplicative_paths(call, edge, paths, symbols, seed, full, where, check)
    if not chain.paths and len(chain.total) > SEGMENTED_AFTER:
        try:
            chain.segments = _segments(call, edge, paths, sweep, seed, where, cut, check)
        except (NotationError, ValueError, TypeError, ZeroDivisionError, AttributeError, KeyError, IndexError,
                RecursionError, NotImplementedError):
            chain.segments = []   # the expansion, checked above, is shown instead
    if not chain.paths and not chain.segments:
        chain.steps = _steps(call, edge, paths, sweep, arrived, where, cut)
    shown = chain.text() + "\n".join(step.formula for step in chain.steps) + "\n".join(f for _, f in chain.segments)
    chain.constants = [(name, value) for name, value in symbols.constants if name in shown]


def _segments(call, edge, paths, sweep: Sweep, seed, where: Where, cut: dict, check) -> list[tuple[str, str]]:
    """The gradient written in segments at the program's named intermediates, from the output down:
    ∂y/∂d = …, then ∂y/∂x in terms of ∂y/∂d — each segment a sweep stopped at the names above it, and each
    checked at every point with the gradient symbols taking the engine's own arriving gradients there.
    [] when there is nothing to segment at, or any segment fails its check (the expansion is shown)."""
    root = call.nodes[0]
    output = call.output_name if call.output_name.isidentifier() else f"({call.output_name})"
    named = {node: symbol for node, symbol in _named(call, edge, paths).items() if node is not root}
    if not named:
        return []
    stop = {node: sympy.Symbol(f"∂{output}/∂{symbol}", real=True) for node, symbol in named.items()}
    if not where.points or any(any(node not in p.arrived for p in where.points) for node in stop):
        return []
    for node, symbol in stop.items():  # shapes are read by evaluating: the gradient symbols need a value
        sweep.env[symbol] = np.broadcast_to(np.asarray(where.points[0].arrived[node], dtype=np.float64),
                                            np.shape(where.points[0].out(node)))
    arrived = sweep.backward(root, seed, check=check, stop=stop)
    segments = []
    for node in call.nodes:  # topological: from the output down, each segment using those above it
        target = node if node in stop else edge if node is edge else None
        if target is None or node not in arrived:
            continue
        shape = np.shape(where.points[0].leaves[edge] if node is edge else where.points[0].out(node))
        expr = notation.shaped(notation.drop_matmul_reshapes(notation.tidy(arrived[node].expr), sweep.env),
                               sweep.env, shape)
        used = {n: g for n, g in stop.items() if g in expr.free_symbols}
        if node is edge:
            expected = [p.grad(edge) for p in where.points]
        else:
            expected = [np.broadcast_to(np.asarray(p.arrived[node], dtype=np.float64), shape) for p in where.points]
        if not where.agrees(expr, sweep.env, expected, cut, used):
            return []
        lhs = str(stop[node]) if node in stop else f"∂{output}/∂{call.names.leaf(edge)}"
        segments.append((lhs, notation._PRINTER.doprint(expr)))
    if len(segments) < 2 or not any(str(g) in formula for _, formula in segments for g in stop.values()):
        return []
    return segments


def _steps(call, edge, paths, sweep: Sweep, arrived: dict, where: Where, cut: dict) -> list[Step]:
    """The cotangent arriving at each node on the way to the leaf, checked against the engine's sweep at
    every point."""
    on_path = {node for path in paths for node, _ in path} | {edge}
    index = {node: k for k, node in enumerate(call.nodes)}
    steps = []
    for node in call.nodes:
        if node not in on_path or node not in arrived:
            continue
        k = index[node]
        shape = np.shape(where.points[0].leaves[edge] if node is edge else where.points[0].out(node))
        expr = notation.shaped(notation.drop_matmul_reshapes(notation.tidy(arrived[node].expr), sweep.env),
                               sweep.env, shape)
        if any(node not in p.arrived for p in where.points):
            return []
        expected = [np.broadcast_to(np.asarray(p.arrived[node], dtype=np.float64), shape) for p in where.points]
        if not where.agrees(expr, sweep.env, expected, cut):
            return []
        label = call.graph[k].name + (f" ({call.graph[k].tensor})" if call.graph[k].tensor else "")
        steps.append(Step(k, label, notation._PRINTER.doprint(expr)))
    return steps


def _local(point, node, i: int) -> np.ndarray:
    """The node's local derivative for input i at a point, by the engine's own rule (a cotangent of ones)."""
    copy = point.copies[node]
    with np.errstate(all="ignore"):
        g = copy.op.vjp[i](np.ones(np.shape(copy.out)), copy.out, *copy.arrays, **copy.attrs)
    if g is None:
        raise ValueError("no gradient flows here")
    return np.broadcast_to(np.asarray(g, dtype=np.float64), np.shape(copy.arrays[i]))


def _multiplicative_paths(call, edge, paths, symbols, seed, full: Sweep, where: Where, check) -> list[ChainPath]:
    """Per path, the product of local factors (each node's rule is g·factor), segmented at named tensors;
    [] when some node on some path is not element-wise. Every local factor, every segment's product and
    every path's share is checked at every point against the engine's rules, and the shares must add up
    to the gradient."""
    names = call.names
    leaf_name = names.leaf(edge)
    cut = _named(call, edge, paths)
    named = Sweep(call.nodes, symbols.edges, symbols.values, symbols.constant, cut=cut)
    placeholder = sympy.Dummy("g", real=True)
    back = {symbol: full.forward[node].expr for node, symbol in cut.items()}
    seed_values = [np.asarray(notation.evaluate(seed.expr, here)) for here in where.envs(full.env)]
    result, totals, routes = [], [], {}
    for path in paths:
        factors = []
        for node, i in path:
            if check is not None:
                check()
            out_shape = tuple(np.shape(node.out))
            named.env[placeholder] = np.ones(out_shape)
            named.cache.clear()
            value = vjp_expr(node, i, Value(placeholder, out_shape), named._inputs(node), named)
            in_shape = tuple(np.shape(node.arrays[i]))
            if value.shape != in_shape and out_shape != ():
                return []  # a broadcast is undone here: not a per-element factor
            factor = sympy.cancel(value.expr / placeholder)
            if factor.has(placeholder):
                return []
            factor = notation.tidy(factor)
            local = [_local(p, node, i) for p in where.points]
            if not where.agrees(factor, named.env, local, cut, exact=False):
                return []
            factors.append((node, factor, local))
        segments, current, product, numbers = [], Segment(call.output_name, ""), sympy.Integer(1), None
        route: list = []
        for (node, i), (_, factor, local) in zip(path, factors):
            current.factors.append((node.name(), notation._PRINTER.doprint(factor)))
            route.append((node, i))
            product *= factor
            numbers = local if numbers is None else [a * b for a, b in zip(numbers, local)]
            below = node.parents[i]
            name = leaf_name if below is edge else (str(cut[below]) if below in cut else None)
            if name is not None:
                product = notation.tidy(product)
                if not where.agrees(product, named.env, numbers, cut, exact=False):
                    return []
                current.bottom, current.factor = name, notation._PRINTER.doprint(product)
                segments.append(current)
                routes.setdefault((current.top, name), set()).add(tuple(route))
                current, product, numbers, route = Segment(name, ""), sympy.Integer(1), None, []
        path_total = seed.expr
        for _, factor, _ in factors:
            path_total *= factor
        for _ in range(len(back) + 1):
            path_total = path_total.xreplace(back)
        shape = tuple(np.shape(where.points[0].leaves[edge]))
        path_total = notation.shaped(notation.tidy(path_total), full.env, shape)
        share = [v for v in seed_values]
        for _, _, local in factors:
            share = [a * b for a, b in zip(share, local)]
        if not where.agrees(path_total, full.env, [np.broadcast_to(a, shape) for a in share]):
            return []
        totals.append(path_total)
        result.append(ChainPath([n.name() for n, _ in path], segments, notation._PRINTER.doprint(path_total)))
    if not where.agrees(sympy.Add(*totals), full.env, [p.grad(edge) for p in where.points]):
        return []
    if any(not path.segments or not all(s.factor for s in path.segments) for path in result):
        return []
    if any(len(found) > 1 for found in routes.values()):
        # g reaches x (or z reaches g) along more than one route: a segment's factor is one route's share,
        # so ∂g/∂x beside it would be false; each path is shown as one product from the output down
        for path in result:
            path.segments = [Segment(path.segments[0].top, path.segments[-1].bottom,
                                     [f for s in path.segments for f in s.factors], path.total)]
    return result


def _per_element(chain: Chain, symbolic, leaf) -> None:
    """∂y/∂x₁ = … from the symbolic vᵀJ, whose every element was checked at the call's values and at the
    nearby points (`SymbolicLeaf.verified`)."""
    symbolic_leaf, _ = symbolic or (None, None)
    if symbolic_leaf is None or not symbolic_leaf.verified:
        return
    from engine.explain.symbolic import element_name

    exprs = np.asarray(symbolic_leaf.vjp, dtype=object)
    output = chain.output if chain.output.isidentifier() else f"({chain.output})"   # as lhs() writes it
    lhs_base = f"∂{output}/∂" if not chain.weight else f"{chain.weight}ᵀ·∂{output}/∂"
    shape = tuple(np.shape(leaf.contribution))
    for k, index in enumerate(np.ndindex(*shape) if shape else [()]):
        if k >= MAX_ELEMENTS:
            chain.more_elements = exprs.size - MAX_ELEMENTS
            break
        chain.elements.append((lhs_base + element_name(chain.leaf, index), str(exprs.reshape(-1)[k])))
    chain.verified = True
