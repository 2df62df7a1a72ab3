"""Assembling explanations: run the program, then explain each backward call it made.

`explain_program` is the fast, numeric part (Jacobian, vᵀJ, graph, trace, finite
differences). `explain_symbolic` is the slow part (sympy); the app runs it in a
worker thread, the CLI calls it directly.
"""
from __future__ import annotations

import time

import numpy as np

from engine.explain.fdcheck import central_differences, edge_value
from engine.explain.graph import describe_graph
from engine.explain.jacobian import numeric_jacobians, structure
from engine.explain.model import CallExplanation, Explanation, LeafExplanation
from engine.explain.record import Names, record_program
from engine.explain.symbolic import MAX_ENTRIES, SymbolicJacobian, SymbolicLimit, symbolic_jacobian
from engine.explain.trace import trace_backward
from engine.graph import AccumulateGrad


def explain_program(source: str, *, max_symbolic: int = MAX_ENTRIES, limits=None) -> Explanation:
    """Run `source` with the snippet runner and explain every backward call it made (numbers only)."""
    recording = record_program(source, limits)
    run = recording.run
    names = Names(run.namespace if run.ok or run.namespace else {})
    calls = [explain_call(k, call, names) for k, call in enumerate(recording.calls)]
    return Explanation(run.ok, run.error, run.stdout, calls, source, max_symbolic, run)


def explain_call(index: int, call, names: Names) -> CallExplanation:
    nodes = call.nodes
    output = call.output
    out_data = np.asarray(nodes[0].out) if type(nodes[0]) is not AccumulateGrad else output._data
    edges = [n for n in nodes if type(n) is AccumulateGrad]
    jacobians = numeric_jacobians(nodes, out_data.shape, call.seed.dtype, edges)
    fds = central_differences(nodes, edges, call.seed)
    v = call.seed.astype(np.float64).reshape(-1)
    leaves = []
    for edge, J, fd in zip(edges, jacobians, fds):
        leaves.append(_leaf(call, edge, names, J, fd, v, nodes))
    output_name = names.tensor(output) or names.node(nodes[0]) or "y"
    graph = describe_graph(nodes, names)
    labels = [f"{g.name} ({g.tensor})" if g.tensor else g.name for g in graph]
    trace = trace_backward(call, names, labels)
    return CallExplanation(index, output_name, out_data.shape, out_data.copy(), call.gradient, call.seed,
                           leaves, graph, trace, nodes, names)


def _leaf(call, edge, names, J, fd, v, nodes) -> LeafExplanation:
    leaf = edge.variable
    shape = leaf._data.shape
    before, after = None, None
    for tensor, b, a in zip(call.leaves, call.grads_before, call.grads_after):
        if tensor is leaf:
            before, after = b, a
    vjp = (v @ J.astype(np.float64)).reshape(shape)
    if after is None:  # not reached by this backward (cannot happen for a leaf of its graph; kept safe)
        after = np.zeros(shape)
    contribution = after.astype(np.float64) - (0 if before is None else before.astype(np.float64))
    loose = leaf._data.dtype != np.float64
    rtol, atol = (1e-4, 1e-5) if loose else (1e-9, 1e-12)
    matches = bool(np.allclose(vjp, contribution, rtol=rtol, atol=atol * max(1.0, np.abs(vjp).max(initial=0))))
    fd_diff = fd_ok = None
    if fd is not None:
        fd_diff = float(np.abs(fd - contribution).max(initial=0.0))
        fd_ok = bool(np.allclose(fd, contribution, rtol=1e-3, atol=1e-4 * max(1.0, np.abs(fd).max(initial=0))))
    return LeafExplanation(names.leaf(edge), shape, edge_value(nodes, edge).copy(), J, structure(J),
                           vjp, contribution, before, after, matches, fd, fd_diff, fd_ok)


def explain_symbolic(explanation, call_index: int = 0, timeout: float = 2.0) -> SymbolicJacobian:
    """The symbolic Jacobian, vᵀJ and chain rule of one call, bounded by `timeout` seconds.

    Accepts an `Explanation` (with call_index) or a `CallExplanation`. Never raises for a
    program's content: a graph too large or too slow gives `ok=False` and a note.
    """
    import sympy  # noqa: F401 - imported before the clock starts: a cold import is not the graph's cost

    from engine.explain.chain import Chain, chain_rule

    call = explanation if isinstance(explanation, CallExplanation) else explanation.calls[call_index]
    max_entries = getattr(explanation, "max_symbolic", MAX_ENTRIES)
    started = time.perf_counter()
    edges = [n for n in call.nodes if type(n) is AccumulateGrad]
    result = symbolic_jacobian(call.nodes, call.names, call.output_shape, call.seed, edges,
                               timeout=timeout, max_entries=max_entries)
    if not result.ok:
        return result
    stop = started + timeout

    def check():
        if time.perf_counter() > stop:
            raise SymbolicLimit(f"the chain rule took longer than {timeout:g} s")

    for edge in edges:
        try:
            result.chains.append(chain_rule(call.nodes, call.names, edge, call.output_name, check=check))
        except SymbolicLimit as limit:
            result.chains.append(Chain(call.names.leaf(edge), call.output_name, False, str(limit)))
    result.seconds = time.perf_counter() - started
    return result
