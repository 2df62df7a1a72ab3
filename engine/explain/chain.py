"""The chain rule read off the recorded graph: dz/dx = dz/dg · dg/dx = 1/12 · 6x² = x²/2.

Walk each path from the output down to a leaf. Every node on it contributes its
local derivative, obtained by applying the node's own VJP rule (from
`engine.derivatives`) to one-hot cotangents on the symbolic replay. Tensors the
program named (`g` in `g = 2*x**3`) become their own symbols, so the factors read
like the article: dz/dg in terms of g, dg/dx in terms of x. Factors are shown per
element (the first element stands for all), which is exact when each node on the
path is element-wise or reduces to one number; otherwise the note says so and
the Jacobian view carries the full matrices.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine import xp
from engine.graph import AccumulateGrad, Node
from engine.xp import sum_to

MAX_PATHS = 8


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
    total: str                  # the product of the segments' factors, simplified, in the leaf's symbols


@dataclass
class Chain:
    leaf: str
    output: str
    ok: bool
    note: str = ""
    paths: list[ChainPath] = field(default_factory=list)
    total: str = ""             # the sum over paths, simplified

    def text(self) -> str:
        """∂z/∂x = ∂z/∂g · ∂g/∂x = 1/12 · 6*x**2 = x**2/2 (one line per path)."""
        lines = []
        for path in self.paths:
            parts = [f"∂{s.top}/∂{s.bottom}" for s in path.segments]
            factors = [f"({s.factor})" if any(c in s.factor for c in "+-") else s.factor for s in path.segments]
            line = f"∂{self.output}/∂{self.leaf}"
            if len(parts) > 1:
                line += " = " + " · ".join(parts) + " = " + " · ".join(factors)
            lines.append(line + f" = {path.total}")
        if len(self.paths) > 1:
            lines.append(f"{self.leaf} reaches {self.output} along {len(self.paths)} paths; "
                         f"their contributions add: ∂{self.output}/∂{self.leaf} = {self.total}")
        return "\n".join(lines)


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


def chain_rule(nodes: list, names, edge, output_name: str, *, check=None) -> Chain:
    """The chain rule for d output / d leaf along the recorded graph, per element."""
    import sympy

    from engine.explain.symbolic import Replay, tidy

    leaf = names.leaf(edge)
    root = nodes[0]
    paths = paths_to(root, edge)
    if not paths:
        return Chain(leaf, output_name, False, f"{output_name} is {leaf} itself" if root is edge
                     else f"{output_name} does not depend on {leaf}")
    if len(paths) > MAX_PATHS:
        return Chain(leaf, output_name, False, f"more than {MAX_PATHS} paths from {output_name} to {leaf}")
    on_path = {node for path in paths for node, _ in path}
    cut = {node: names.node(node) for node in on_path
           if node is not root and names.node(node) not in (None, leaf, output_name)}
    rep = Replay(nodes, names, deadline=check, cut=cut)
    generic = {s: sympy.Symbol(_base(s.name, names_in=rep), real=True) for s in rep.values}
    chain_paths, totals = [], []
    for path in paths:
        factors, index = [], 0  # the element of the node's input that the first leaf element reaches
        for node, i in reversed(path):
            local = _local_jacobian(rep.copies[node], i, rep.values)
            m, k = local.shape
            if m == k and _is_diagonal(local):
                factor = local[index, index]
            elif m == 1:
                factor, index = local[0, index], 0
            else:
                return Chain(leaf, output_name, False,
                             f"{node.name()} is not element-wise (its local Jacobian is {m}x{k}); "
                             "the chain rule multiplies the full matrices — see the Jacobian")
            factors.append((node, tidy(tidy(factor).xreplace(generic))))
            if check is not None:
                check()
        factors.reverse()
        segments, top = [], output_name
        current = Segment(top, "")
        product = sympy.Integer(1)
        for node, factor in factors:
            current.factors.append((node.name(), str(factor)))
            product *= factor
            below = node.parents[[i for n, i in path if n is node][0]]
            name = leaf if below is edge else cut.get(below)
            if name is not None:
                current.bottom, current.factor = name, str(tidy(product))
                segments.append(current)
                current, product = Segment(name, ""), sympy.Integer(1)
        back = {sympy.Symbol(name, real=True): _generic_value(rep, node, generic) for node, name in cut.items()}
        total = sympy.Integer(1)
        for segment in segments:
            total *= sympy.sympify(segment.factor, locals=_locals(generic))
        total = tidy(_substitute_all(total, back))
        totals.append(total)
        chain_paths.append(ChainPath([n.name() for n, _ in path], segments, str(total)))
    return Chain(leaf, output_name, True, "", chain_paths, str(tidy(sympy.Add(*totals))))


def _base(symbol_name: str, names_in) -> str:
    """The tensor name of an element symbol (inp₁₂ → inp)."""
    return symbol_name.rstrip("₀₁₂₃₄₅₆₇₈₉,")


def _locals(generic: dict) -> dict:
    return {s.name: s for s in generic.values()}


def _generic_value(rep, node, generic):
    """A named intermediate's forward expression for its first element, in generic symbols."""
    from engine.explain.replay import _forward

    copy = rep.copies[node]
    with xp.at_point(rep.values):
        value = np.asarray(_forward(copy, list(copy.arrays)), dtype=object)
    return value.flat[0].xreplace(generic) if hasattr(value.flat[0], "xreplace") else value.flat[0]


def _substitute_all(expr, back: dict):
    for _ in range(len(back) + 1):
        expr = expr.xreplace(back)
    return expr


def _local_jacobian(node: Node, i: int, values: dict) -> np.ndarray:
    """∂ out / ∂ input i of one node as an (m, k) object array, from the node's own VJP rule."""
    out = np.asarray(node.out)
    m = out.size
    seeds = np.eye(m, dtype=int).astype(object).reshape((m,) + out.shape)
    shape = np.shape(node.arrays[i])
    with xp.at_point(values):
        g = node.op.vjp[i](seeds, node.out, *node.arrays, **node.attrs)
    g = np.asarray(g, dtype=object)
    if g.shape[1:] != shape:
        g = sum_to(g, shape, 1)
    return np.broadcast_to(g, (m,) + shape).reshape(m, -1)


def _is_diagonal(local: np.ndarray) -> bool:
    off = ~np.eye(local.shape[0], dtype=bool)
    return all(e == 0 for e in local[off])
