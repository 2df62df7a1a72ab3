"""The finite-difference check: the gradient estimated without any derivative rule.

Method: the recorded graph's forward is replayed in float64 with one leaf element
moved by ±h (each op's `forward` from the table, no backward rule involved), and
the central difference of s = Σ v·y gives ds/dx for that element. Replaying the
recorded graph (rather than re-running the program) keeps the learner's program
from running again and sees exactly the graph backward walked; it costs two
forward replays per input element, so it is bounded by `max_elements`.
"""
from __future__ import annotations

import numpy as np

from engine.explain.replay import as64, ops_of, replay, root_of
from engine.graph import AccumulateGrad


def replayed_output(nodes, values, roots=None) -> np.ndarray:
    """The output replayed at `values`; for several `roots`, their values flattened and stacked in order."""
    if roots is None:
        root = root_of(nodes)
        if type(root) is AccumulateGrad:
            return values[root]
        return replay(nodes, values, constant=as64, fix_dtype=as64)[root].out
    replayed = replay(nodes, values, constant=as64, fix_dtype=as64)
    return np.concatenate([np.ravel(values[r] if type(r) is AccumulateGrad else replayed[r].out) for r in roots])


def central_differences(nodes: list, edges: list, seed: np.ndarray, values: dict | None = None, *,
                        max_elements: int = 2000, roots: list | None = None) -> list:
    """d(Σ seed·y)/dx per leaf edge as float64 arrays shaped like the leaf; None beyond max_elements.

    `values`: {edge: the leaf's array when backward was called} (as captured at the call). With several
    `roots`, `seed` is their cotangents stacked as `replayed_output` stacks them."""
    base = leaves64(nodes, edges, values or {})
    if sum(base[edge].size for edge in edges) > max_elements:
        return [None] * len(edges)
    v = seed.astype(np.float64)
    # a custom Function's forward is the learner's code: its own constants (torch.ones(3)) keep it in
    # float32 whatever the replay passes in, so its differences take a step float32 can resolve
    relative_step = 1e-3 if any(n.op.custom for n in ops_of(nodes)) else 1e-6
    results = []
    for edge in edges:
        x = base[edge]
        grad = np.zeros_like(x)
        for k in range(x.size):
            h = relative_step * max(1.0, abs(x.flat[k]))
            sides = []
            for step in (h, -h):
                moved = x.copy()
                moved.flat[k] += step
                out = replayed_output(nodes, {**base, edge: moved}, roots)
                sides.append(float(np.sum(v * out)))
            grad.flat[k] = (sides[0] - sides[1]) / (2 * h)
        results.append(grad)
    return results


def leaves64(nodes: list, edges: list, values: dict) -> dict:
    """Every leaf's value at the call in float64 (all are replayed), the `edges` differentiated included even
    when the call did not capture them (read from the node that used them)."""
    base = {edge: np.asarray(value).astype(np.float64) for edge, value in values.items()}
    base.update({edge: np.asarray(values[edge] if edge in values else edge_value(nodes, edge)).astype(np.float64)
                 for edge in edges})
    return base


def edge_value(nodes: list, edge) -> np.ndarray:
    """The value a leaf had when the graph was recorded (read from the node that used it)."""
    for node in nodes:
        for i, parent in enumerate(getattr(node, "parents", ())):
            if parent is edge:
                return np.asarray(node.arrays[i])
    return np.asarray(edge.variable._data)
