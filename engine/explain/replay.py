"""Re-running a recorded graph: on its own numbers, in float64, or on sympy symbols.

A `BackwardCall` keeps the nodes of the graph it differentiated. The explanation
never sweeps those nodes themselves (they may be freed, or hold a `retain_grad`
tensor whose `.grad` the learner reads); it builds fresh `Node`s with the same
ops and attributes and sweeps those with `engine.graph.sweep` — the engine's own
backward, with the engine's own rules from `engine.derivatives`.

`replay` recomputes the forward values with each op's `forward` from the table,
with the leaves (and, optionally, named constants or intermediates) replaced by
new arrays: perturbed float64 values for finite differences, or object arrays of
sympy symbols for the symbolic Jacobian.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from engine import xp
from engine.graph import AccumulateGrad, Node


def leaf_of(edge):
    """The leaf Tensor behind an AccumulateGrad edge, else None."""
    return edge.variable if type(edge) is AccumulateGrad else None


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
