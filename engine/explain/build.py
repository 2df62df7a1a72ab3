"""Assembling explanations: run the program, then explain each backward call it made.

`explain_program` is the fast, numeric part (Jacobian, vᵀJ, graph, trace, finite
differences). `explain_symbolic` is the slow part (sympy); the app runs it in a
worker thread, the CLI calls it directly.
"""
from __future__ import annotations

import time

import numpy as np

from engine.explain.dual import explain_read
from engine.explain.fdcheck import central_differences
from engine.explain.forward import forward_of, partner
from engine.explain.graph import describe_graph
from engine.explain.jacobian import (
    affordable,
    batched_pullback,
    close,
    jacobian_cost,
    numeric_jacobians,
    one_hot_seeds,
    structure,
)
from engine.explain.model import CallExplanation, Explanation, LeafExplanation
from engine.explain.record import Names, record_program
from engine.explain.replay import clone
from engine.explain.symbolic import MAX_ENTRIES, SymbolicJacobian, SymbolicLimit, substitute, symbolic_jacobian
from engine.explain.trace import trace_backward
from engine.graph import AccumulateGrad, Node
from engine.nn.hooks import HOOK_NODES


def explain_program(source: str, *, max_symbolic: int = MAX_ENTRIES, limits=None) -> Explanation:
    """Run `source` with the snippet runner and explain every derivative call it made (numbers only): each
    backward, and each tangent read in forward mode (`engine.explain.dual`), in program order."""
    recording = record_program(source, limits)
    run = recording.run
    final = run.namespace if run.ok or run.namespace else {}
    calls, paired = [], set()
    reads = list(recording.reads)   # forward mode's reads of a tangent, placed among the backward calls

    def read_until(k: int) -> None:
        while reads and reads[0].after <= k:
            read = reads.pop(0)
            explained = explain_read(len(calls), read, recording.steps, Names(read.bound, final))
            if explained is not None:
                calls.append(explained)

    for k, captured in enumerate(recording.captured):
        read_until(k)
        if k in paired:
            continue
        names = Names(captured.bound, final)  # the names bound at the call first, then at the end
        names.add_origin(captured.origin)
        explained = explain_call(len(calls), captured, names)
        second = partner(recording.captured, k)
        if second is not None:  # forward mode's two sweeps, explained as the one J·t they compute
            explained.forward = forward_of(explained, captured, second)
            if explained.forward is not None:
                paired.add(k + 1)
                explained.trace = []   # the sweep that ran started from a zero cotangent: nothing to follow
        calls.append(explained)
    read_until(len(recording.captured))
    return Explanation(run.ok, run.error, run.stdout, calls, source, max_symbolic, run)


def explain_call(index: int, captured, names: Names) -> CallExplanation:
    """One derivative call, from what was captured when it was made (`record.Captured`).

    A call that accumulates (`backward`) is checked against what it added to each leaf's `.grad`; one that
    returns its gradients (`autograd.grad`, `torch.func`) against what it returned. A batched call (a
    Jacobian's one-hot rows pushed back at once: `jacrev`, `autograd.functional.jacobian`) returned J itself."""
    call = captured.call
    nodes = captured.nodes
    values = captured.leaf_values
    root = nodes[0]
    out_data = np.asarray(root.out) if type(root) is not AccumulateGrad else values[root]
    output_name = captured.expression or names.tensor(call.output) or names.node(root) or _fresh(names)
    graph = describe_graph(nodes, names)
    batched = len(call.roots) <= 1 and np.ndim(call.seed) > out_data.ndim
    # a module's full backward hooks run inside its BackwardHookFunction nodes (engine.nn.hooks), by identity
    module_hooks = {n for n in nodes if isinstance(n, Node) and captured.origin.get(n, n) in HOOK_NODES}
    wanted = None if call.inputs is None else {id(x) for x in call.inputs}
    edges = [n for n in nodes if type(n) is AccumulateGrad and (wanted is None or id(n.variable) in wanted)]
    explained = CallExplanation(index, output_name, out_data.shape, out_data.copy(), call.gradient, call.seed,
                                [], graph, [], nodes, names, error=captured.error, line=captured.line,
                                leaf_values=values, weight=captured.weight,
                                hooked=bool(module_hooks) or any(getattr(n, "hooks", None) for n in nodes),
                                module_hooks=bool(module_hooks),
                                api=call.api, returns=not call.leaves and bool(call.results), batched=batched,
                                derivative_of=captured.derivative_of)
    if captured.error is not None:  # backward raised: no gradient was produced, so there is nothing to check
        return explained
    roots = None
    if len(call.roots) > 1:  # several outputs at once: read as one vector, their Jacobians stacked
        roots = _stack_outputs(explained, captured, names)
        if roots is None:
            return explained
        explained.root_indices = [next(k for k, n in enumerate(nodes) if n is r) for r in roots]
        for k in explained.root_indices:
            graph[k].kind = "output"
    if batched:
        fds = [None] * len(edges)
    else:
        fds = central_differences(nodes, edges, explained.seed, values, roots=roots)
    v = explained.sweep_seed.astype(np.float64).reshape(-1)
    if not affordable(nodes, explained.output_shape, edges):  # sized before it is built: vᵀJ only, said so
        entries, _ = jacobian_cost(nodes, explained.output_shape, edges)
        explained.too_large = entries
        if batched or roots is not None:  # a Jacobian this large returned, or several outputs: said, not shown
            return explained
        rows = batched_pullback(nodes, clone(nodes), explained.sweep_seed[None].astype(out_data.dtype), edges)
        for edge, row, fd in zip(edges, rows, fds):
            explained.leaves.append(_leaf(call, edge, names, None, fd, v, values[edge], batched, row[0]))
    else:
        jacobians = numeric_jacobians(nodes, explained.output_shape, out_data.dtype, edges, roots)
        for edge, J, fd in zip(edges, jacobians, fds):
            explained.leaves.append(_leaf(call, edge, names, J, fd, v, values[edge], batched))
    labels = [f"{g.name} ({g.tensor})" if g.tensor else g.name for g in graph]
    if not batched and roots is None:  # several outputs: one sweep from all of them, not one path to follow
        explained.trace = trace_backward(_Frozen(call, nodes, module_hooks), names, labels)
    return explained


def _stack_outputs(explained: CallExplanation, captured, names: Names) -> list | None:
    """Several outputs differentiated at once (`autograd.backward([y1, y2])`, `autograd.grad([y1, y2], x)`),
    read as one vector: their values, cotangents and Jacobians stacked in the call's order (so vᵀJ is
    v₁ᵀJ₁ + v₂ᵀJ₂ + …). Returns their frozen nodes (identity: each root's own node), or None."""
    call = captured.call
    frozen = {original: copy for copy, original in captured.origin.items() if isinstance(copy, Node)}
    roots = [frozen.get(r._grad_edge(), r._grad_edge()) for r in call.roots]
    if any(r is None for r in roots) or np.ndim(call.seeds[0]) > np.ndim(call.roots[0]._data):
        return None   # a batched sweep of several outputs: not explained
    outs = [np.asarray(explained.leaf_values[r] if type(r) is AccumulateGrad else r.out) for r in roots]
    explained.several = len(roots)
    explained.output_names = [names.tensor(y) or f"y{k + 1}" for k, y in enumerate(call.roots)]
    explained.output_name = "(" + ", ".join(explained.output_names) + ")"
    explained.output_value = np.concatenate([out.reshape(-1) for out in outs])
    explained.output_shape = explained.output_value.shape
    explained.seed = np.concatenate([np.asarray(seed, dtype=np.float64).reshape(-1) for seed in call.seeds])
    explained.gradient = None if all(g is None for g in call.gradients) else explained.seed
    return roots


class _Frozen:
    """The recorded call with its graph replaced by the copies made at the call."""

    def __init__(self, call, nodes, module_hooks: set) -> None:
        self.nodes, self.seed, self.module_hooks = nodes, call.seed, module_hooks
        self.leaves, self.grads_before, self.grads_after = call.leaves, call.grads_before, call.grads_after
        self.inputs = call.inputs


def _fresh(names: Names) -> str:
    used = names.used()
    return next(n for n in ("y", "out", "f", "output") if n not in used)


def _leaf(call, edge, names, J, fd, v, value, batched: bool, vjp_row=None) -> LeafExplanation:
    """One leaf's explanation from its Jacobian J, or, when J was too large to build (None), from the one
    row vᵀJ that a single backward sweep gives (`vjp_row`)."""
    leaf = edge.variable
    shape = value.shape
    before, after = None, None
    for tensor, b, a in zip(call.leaves, call.grads_before, call.grads_after):
        if tensor is leaf:
            before, after = b, a
    for tensor, result in zip(call.inputs or (), call.results):  # autograd.grad, torch.func: what it returned
        if tensor is leaf and result is not None:
            after = result
    if J is None:
        vjp = np.asarray(vjp_row, dtype=np.float64).reshape(shape)
    else:
        vjp = (J.astype(np.float64).reshape(J.shape[:1] + shape) if batched
               else (v @ J.astype(np.float64)).reshape(shape))
    if after is None:  # not reached by this backward (cannot happen for a leaf of its graph; kept safe)
        after = np.zeros(vjp.shape)
    after = np.asarray(after).reshape(vjp.shape)
    contribution = after.astype(np.float64) - (0 if before is None else before.astype(np.float64))
    loose = leaf._data.dtype != np.float64
    rtol, atol = (1e-4, 1e-5) if loose else (1e-9, 1e-12)
    matches = close(vjp, contribution, rtol=rtol, atol=atol)  # nan where backward has nan is agreement, not a ✗
    fd_diff = fd_ok = None
    if fd is not None:
        fd_diff = float(np.nan_to_num(np.abs(fd - contribution), nan=0.0).max(initial=0.0))
        fd_ok = close(fd, contribution, rtol=1e-3, atol=1e-4)
    kind = structure(J) if J is not None else {"kind": "too-large", "shape": [len(v), value.size], "nonzero": None,
                                               "blocks": None}
    return LeafExplanation(names.leaf(edge), shape, value.copy(), J, kind,
                           vjp, contribution, before, after, matches, fd, fd_diff, fd_ok)


def explain_symbolic(explanation, call_index: int = 0, timeout: float = 2.0) -> SymbolicJacobian:
    """The symbolic Jacobian, vᵀJ and chain rule of one call, bounded by `timeout` seconds.

    Accepts an `Explanation` (with call_index) or a `CallExplanation`. Never raises for a
    program's content: a graph too large or too slow gives `ok=False` and a note. Each symbolic
    Jacobian and vᵀJ is compared with the engine's numbers at the call's values and at nearby points
    (`SymbolicLeaf.verified`); the chain rule checks its own formulas the same way (`engine.explain.chain`).
    """
    import sympy  # noqa: F401 - imported before the clock starts: a cold import is not the graph's cost

    from engine.explain.chain import Chain, chain_rule, nearby

    call = explanation if isinstance(explanation, CallExplanation) else explanation.calls[call_index]
    max_entries = getattr(explanation, "max_symbolic", MAX_ENTRIES)
    started = time.perf_counter()
    if call.error is not None:
        return SymbolicJacobian(False, "raised")
    if call.several:  # the symbolic replay follows one output; the stacked numbers are shown, checked
        return SymbolicJacobian(False, "several outputs", note_key="symbolic_several")
    explained = {leaf.name for leaf in call.leaves}
    edges = [n for n in call.nodes if type(n) is AccumulateGrad and call.names.leaf(n) in explained]
    result = symbolic_jacobian(call.nodes, call.names, call.output_shape, call.sweep_seed, edges,
                               timeout=timeout, max_entries=max_entries, leaf_values=call.leaf_values)
    points = nearby(call)
    if result.ok:
        _verify_symbolic(result, call, edges, points)
    stop = time.perf_counter() + max(timeout, 0.5)   # the chain rule has its own budget

    def check():
        if time.perf_counter() > stop:
            raise SymbolicLimit(f"the chain rule took longer than {timeout:g} s")

    for edge in edges if call.forward is None else ():  # forward mode: J·t, no vᵀ∂y/∂x to chain (render_chain)
        leaf_name = call.names.leaf(edge)
        sym = next((s for s in result.leaves if s.name == leaf_name and s.verified), None) if result.ok else None
        try:
            result.chains.append(chain_rule(call, edge, check=check, symbolic=(sym, result.values), points=points))
        except SymbolicLimit:
            result.chains.append(Chain(leaf_name, call.output_name, False, "timeout"))
    result.seconds = time.perf_counter() - started
    return result




def _verify_symbolic(result: SymbolicJacobian, call, edges: list, points: list) -> None:
    """Each leaf's symbolic J and vᵀJ against the engine's numbers at every point (the call's values and the
    nearby ones: every leaf's element symbols take the point's values, named constants keep theirs).
    A form that holds at the call's values only (a branch decided there: relu at 0, a tie in max) is
    marked `point_only` and never shown."""
    seeds = one_hot_seeds(call.output_shape, np.float64)
    for p, point in enumerate(points):
        jacobians = batched_pullback(call.nodes, point.copies, seeds, edges)
        values = dict(result.values)
        for sym, edge in zip(result.leaves, edges):
            values.update(zip(sym.symbols.flat, (float(v) for v in point.leaves[edge].flat)))
        for sym, edge, J in zip(result.leaves, edges, jacobians):
            if p and not sym.verified:
                continue
            holds = close(substitute(sym.jacobian, values), J) and close(
                substitute(sym.vjp.reshape(-1), values), point.grad(edge).reshape(-1))
            if p == 0:
                sym.verified = holds
            elif not holds:
                sym.verified, sym.point_only = False, True
    if not points:
        for sym in result.leaves:
            sym.verified = False
