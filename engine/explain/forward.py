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

from dataclasses import dataclass

import numpy as np

from engine.explain.fdcheck import leaves64, replayed_output
from engine.explain.jacobian import close
from engine.explain.replay import root_of
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
    computed = sum(leaf.jacobian.astype(np.float64) @ t.reshape(-1) for leaf, t in zip(explained.leaves, tangents))
    computed = np.asarray(computed).reshape(explained.output_shape)
    returned = np.asarray(second.call.results[0])
    loose = returned.dtype != np.float64
    matches = close(computed, returned.reshape(computed.shape), rtol=1e-4 if loose else 1e-9,
                    atol=1e-5 if loose else 1e-12)
    fd = _directional(captured.nodes, edges, tangents, captured.leaf_values)
    fd_agrees = None if fd is None else close(fd, computed, rtol=1e-3, atol=1e-4)
    diff = None if fd is None else float(np.nan_to_num(np.abs(fd - computed), nan=0.0).max(initial=0.0))
    return ForwardExplanation(tangents, computed, returned, matches, fd, fd_agrees, diff)


def _directional(nodes: list, edges: list, tangents: list, values: dict) -> np.ndarray | None:
    """The derivative along t without any derivative rule: the recorded forward replayed in float64."""
    root = root_of(nodes)
    if type(root) is AccumulateGrad:
        return None
    base = leaves64(nodes, edges, values)
    scale = max([1.0] + [float(np.abs(base[edge]).max(initial=0.0)) for edge in edges])
    h = 1e-6 * scale / max(1.0, max(float(np.abs(t).max(initial=0.0)) for t in tangents))
    sides = []
    for step in (h, -h):
        moved = {**base, **{edge: base[edge] + step * t.reshape(base[edge].shape) for edge, t in zip(edges, tangents)}}
        sides.append(replayed_output(nodes, moved))
    return (sides[0] - sides[1]) / (2 * h)
