"""Re-running a recorded graph: on its own numbers, in float64, or on sympy symbols.

A `BackwardCall` keeps the nodes of the graph it differentiated. The explanation
never sweeps those nodes themselves (they may be freed, or hold a `retain_grad`
tensor whose `.grad` the learner reads); it builds fresh `Node`s with the same
ops and attributes and sweeps those with `engine.graph.sweep` — the engine's own
backward, with the engine's own rules from `engine.ops`.

`replay` recomputes the forward values with each op's `forward` from the table,
with the leaves (and, optionally, named constants or intermediates) replaced by
new arrays: perturbed float64 values for finite differences, or object arrays of
sympy symbols for the symbolic Jacobian.

`points` replays the graph at the call's values and at leaves moved by about 1 % (constants and the
seed held), and runs the engine's sweep there: a formula is shown only when it gives backward's numbers
at every one of them, so a formula that matches the call's values by coincidence (a constant equal to
the leaf, a branch decided at one point) is never shown.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from engine import xp
from engine.graph import AccumulateGrad, Node, sweep

NEARBY = 2            # perturbed points besides the call's own values
STEP = 0.01           # how far a leaf element moves: about 1 % (at least 0.01 for values near 0)


def ops_of(nodes: list) -> list[Node]:
    """The op nodes of a recorded graph (AccumulateGrad sinks left out), root first."""
    return [n for n in nodes if isinstance(n, Node)]


def clone(nodes: list) -> dict:
    """Fresh copies of the op nodes, same arrays, wired to each other; {original: copy}."""
    copies: dict = {}
    for node in reversed(ops_of(nodes)):
        parents = tuple(copies.get(p, p) if p is not None else None for p in node.parents)
        copies[node] = Node(node.op, node.arrays, node.attrs, node.out, parents)
    return copies


def root_of(nodes: list):
    """The edge backward started from (a Node, or an AccumulateGrad when y is itself a leaf)."""
    return nodes[0]


def replay(nodes: list, leaf_values: Mapping, *, constant: Callable = lambda a: a,
           cut: Mapping | None = None, fix_dtype: Callable | None = None,
           deadline: Callable[[], None] | None = None) -> dict:
    """Recompute every op node's forward on new inputs; {original node: replayed node}.

    leaf_values: {AccumulateGrad: array} for the leaves that require grad.
    constant(array): the value used for an input with no gradient edge (kept as is by default).
    cut: {original node: array} — use this array as that node's output instead of recomputing
      it (the chain rule names an intermediate this way).
    fix_dtype(array): applied to each recomputed output (float64 replays keep float64).
    deadline(): called once per node; raises to stop a replay that takes too long.
    """
    cut = cut or {}
    copies: dict = {}
    for node in reversed(ops_of(nodes)):
        if deadline is not None:
            deadline()
        arrays = list(node.arrays)
        for i, parent in enumerate(node.parents):
            if parent is None:
                arrays[i] = constant(arrays[i])
            elif type(parent) is AccumulateGrad:
                arrays[i] = leaf_values[parent]
            else:
                arrays[i] = copies[parent].out
        for i in range(len(node.parents), len(arrays)):
            arrays[i] = constant(arrays[i])
        if node in cut:
            out = cut[node]
        else:
            out = _forward(node, arrays)
            if fix_dtype is not None:
                out = fix_dtype(out)
        parents = tuple(copies.get(p, p) if p is not None else None for p in node.parents)
        copies[node] = Node(node.op, tuple(arrays), node.attrs, out, parents)
    return copies


def _forward(node: Node, arrays: list):
    out = node.op.forward(*arrays, **node.attrs)
    if any(xp.symbolic(a) for a in arrays):
        return out if isinstance(out, np.ndarray) and out.dtype == object else np.array(out, dtype=object)
    return np.asarray(out)


def as64(a):
    """Floating arrays as float64 (the replays' precision); anything else unchanged."""
    return a.astype(np.float64) if isinstance(a, np.ndarray) and a.dtype.kind in "fc" else a


@dataclass
class Point:
    """The recorded graph replayed at one set of leaf values, in float64, and swept by the engine."""

    leaves: dict        # {AccumulateGrad: the leaf's value here}
    copies: dict        # {recorded node: its replayed copy}
    arrived: dict       # {recorded node or leaf edge: the cotangent the engine's sweep brought there}

    def out(self, node) -> np.ndarray:
        """The value of a node's result here (a leaf's value for its edge)."""
        return self.leaves[node] if type(node) is AccumulateGrad else self.copies[node].out

    def grad(self, edge) -> np.ndarray:
        """What reached the leaf edge, in the leaf's shape (zeros where nothing arrives)."""
        shape = np.shape(self.leaves[edge])
        g = self.arrived.get(edge)
        return np.zeros(shape) if g is None else np.broadcast_to(np.asarray(g, dtype=np.float64), shape)


def points(nodes: list, leaf_values: Mapping, seed: np.ndarray, *, nearby: int = NEARBY) -> list[Point]:
    """The graph at the call's values, then at `nearby` points with every leaf element moved by about
    STEP (a fixed pseudo-random direction per point, so explanations are reproducible). Hooks do not
    run: this is the function's own gradient."""
    base = {edge: np.asarray(value, dtype=np.float64) for edge, value in leaf_values.items()}
    found = [at(nodes, base, seed)]
    rng = np.random.default_rng(2027)
    signs = {edge: rng.choice([-1.0, 1.0], x.shape) for edge, x in base.items()}
    for k in range(nearby):
        moved = {}
        for edge, x in base.items():  # every element moves up at one point and down at the next: a
            size = rng.uniform(0.4, 1.0, x.shape)   # branch decided at the call's values shows on one side
            moved[edge] = x + STEP * size * signs[edge] * (-1) ** k * np.maximum(np.abs(x), 1.0)
        found.append(at(nodes, moved, seed))
    return found


def at(nodes: list, leaf_values: Mapping, seed: np.ndarray) -> Point:
    """One point: the forward replayed on `leaf_values` (constants held), the seed swept back through it."""
    root = root_of(nodes)
    seed = np.asarray(seed, dtype=np.float64)
    if type(root) is AccumulateGrad:  # backward on the leaf itself
        return Point(dict(leaf_values), {}, {root: seed})
    with np.errstate(all="ignore"):
        copies = replay(nodes, leaf_values, constant=as64, fix_dtype=as64)
        original = {copy: node for node, copy in copies.items()}
        reached = sweep(copies[root], seed, retain_graph=True, capture=set(copies.values()))
    return Point(dict(leaf_values), copies, {original.get(k, k): g for k, g in reached.items()})
