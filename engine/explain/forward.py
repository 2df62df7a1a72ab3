"""Forward mode explained as forward mode: J·t, not the two backward sweeps that computed it.

The engine computes `torch.func.jvp` and `torch.autograd.functional.jvp` with the double-vjp trick: a
first backward records g(u) = Jᵀu as a graph (a zero cotangent u that requires grad), a second pulls the
tangent t back through g to u, which gives J·t. Shown as they ran, a learner would see "v = 0" and an
output of zeros. So the pair is recognised — by identity: the second call differentiates for the very
cotangent array the first one started from — and explained as one forward-mode call: the Jacobian of the
first call's graph, the tangent the program gave, J·t worked out from them, checked against what the
call returned and against a directional finite difference (the function replayed at x ± h·t).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.explain.fdcheck import leaves64
from engine.explain.jacobian import close
from engine.explain.replay import as64, ops_of, replay, root_of
from engine.graph import AccumulateGrad

FORWARD_APIS = frozenset({"func.jvp", "autograd.functional.jvp"})


@dataclass
class ForwardExplanation:
    """A forward-mode call: J·t = Σ over inputs of Jₓ·tₓ."""

    tangents: list                   # per explained leaf (CallExplanation.leaves order): its tangent tₓ
    computed: np.ndarray             # Σ Jₓ·tₓ from the Jacobians shown, shaped like the output
    returned: np.ndarray             # what the call returned as the output's tangent
    matches: bool                    # computed == returned
    finite_differences: np.ndarray | None   # (f(x + h·t) − f(x − h·t)) / 2h, float64; None if not replayable
    fd_agrees: bool | None
    fd_max_difference: float | None = None   # largest |finite difference − J·t| (nan where both are nan: 0)
    steps: list = field(default_factory=list)   # dual numbers: dual.TangentNode per op, in program order


def partner(captured: list, k: int):
    """The second sweep of the forward-mode pair that starts at captured[k], or None."""
    if k + 1 >= len(captured):
        return None
    first, second = captured[k].call, captured[k + 1].call
    if first.api not in FORWARD_APIS or second.api != first.api or not first.create_graph:
        return None
    if captured[k].error is not None or captured[k + 1].error is not None:
        return None
    inputs = second.inputs or []
    if len(inputs) != 1 or not first.seeds or inputs[0]._data is not first.seeds[0]:
        return None
    if len(second.roots) != len(first.inputs or ()) or len(second.results) != 1 or second.results[0] is None:
        return None  # an input the output does not use has no tangent term: not paired, shown as it ran
    return captured[k + 1]


def forward_of(explained, captured, second) -> ForwardExplanation | None:
    """J·t for the pair (`captured`, `second`), from the Jacobians `explained` (the first call's) holds."""
    if explained.error is not None or not explained.leaves or any(leaf.jacobian is None for leaf in explained.leaves):
        return None
    by_input = {id(x): np.asarray(t, dtype=np.float64) for x, t in zip(captured.call.inputs, second.call.gradients)}
    wanted = {id(x) for x in captured.call.inputs}   # the same leaves, in the same order, as explain_call's
    edges = [n for n in captured.nodes if type(n) is AccumulateGrad and id(n.variable) in wanted]
    if len(edges) != len(explained.leaves) or any(id(edge.variable) not in by_input for edge in edges):
        return None
    tangents = [by_input[id(edge.variable)] for edge in edges]
    return along(explained, captured.nodes, edges, tangents, np.asarray(second.call.results[0]), captured.leaf_values)


def along(explained, nodes: list, edges: list, tangents: list, returned: np.ndarray, values: dict,
          differences: dict | None = None) -> ForwardExplanation:
    """J·t from the Jacobians `explained` holds (one per edge, in order) and the `tangents`, checked against the
    tangent the program got (`returned`) and a directional finite difference (`differences`, from `directional`,
    worked out here when not given)."""
    computed = sum(leaf.jacobian.astype(np.float64) @ t.reshape(-1) for leaf, t in zip(explained.leaves, tangents))
    computed = np.asarray(computed).reshape(explained.output_shape)
    loose = returned.dtype != np.float64
    matches = close(computed, returned.reshape(computed.shape), rtol=1e-4 if loose else 1e-9,
                    atol=1e-5 if loose else 1e-12)
    if differences is None:
        differences = directional(nodes, edges, tangents, values)
    fd = None if differences is None else differences[root_of(nodes)]
    fd_agrees = None if fd is None else close(fd, computed, rtol=1e-3, atol=1e-4)
    diff = None if fd is None else float(np.nan_to_num(np.abs(fd - computed), nan=0.0).max(initial=0.0))
    return ForwardExplanation(tangents, computed, returned, matches, fd, fd_agrees, diff)


def directional(nodes: list, edges: list, tangents: list, values: dict) -> dict | None:
    """The derivative along t of every op node's result, without any derivative rule: the recorded forward
    replayed in float64 at x ± h·t, {node: (f(x + h·t) − f(x − h·t)) / 2h}; None when the output is a leaf."""
    if type(root_of(nodes)) is AccumulateGrad:
        return None
    base = leaves64(nodes, edges, values)
    scale = max([1.0] + [float(np.abs(base[edge]).max(initial=0.0)) for edge in edges])
    h = 1e-6 * scale / max(1.0, max(float(np.abs(t).max(initial=0.0)) for t in tangents))
    sides = []
    with np.errstate(all="ignore"):
        for step in (h, -h):
            moved = {**base, **{edge: base[edge] + step * t.reshape(base[edge].shape) for edge, t in zip(edges, tangents)}}
            sides.append(replay(nodes, moved, constant=as64, fix_dtype=as64))
        return {node: (sides[0][node].out - sides[1][node].out) / (2 * h) for node in ops_of(nodes)}
