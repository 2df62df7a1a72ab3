"""The one backward: every API that differentiates a program goes through `run_backward`.

`Tensor.backward`, `torch.autograd.backward`, `torch.autograd.grad`, the `torch.autograd.functional` API and
every `torch.func` transform call it; it checks the cotangents, records the call for the explanation layer
(`graph.BackwardCall`), runs the one sweep (`graph.sweep`, with or without `create_graph`) and either adds
the gradients into `.grad` or returns them.
"""
from __future__ import annotations

import warnings

import numpy as np

from engine import dtypes, state
from engine.graph import AccumulateGrad, BackwardCall, _Roots, active_recorders, as_grad, sweep, topological
from engine.tensor import Tensor, tensor

CREATE_GRAPH_CYCLE = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient "
    "which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you "
    "have to use this function, make sure to reset the .grad fields of your parameters to None after use to break "
    "the cycle and avoid the leak.")


def run_backward(roots, grads, *, inputs=None, retain_graph=None, create_graph=False, accumulate=True,
                 nbatch: int = 0, api: str = "Tensor.backward", warn_stacklevel: int = 3):
    """Differentiate `roots` (Tensors) with the cotangents `grads` (one per root: a Tensor, array-like,
    or None for an implicit 1 of a one-element root).

    `inputs` (Tensors, leaves or not) limits what is differentiated for. With `accumulate` the gradients are
    added into `.grad` (of `inputs`, else of every leaf reached) and None is returned; without it, a list
    with each input's gradient (a Tensor, or None where the graph does not reach it) is returned and no
    `.grad` changes. `create_graph` runs the rules on Tensors, so the gradients are differentiable;
    `retain_graph` (default: `create_graph`) keeps the graph for another backward. `nbatch` leading axes of
    every cotangent are a batch of cotangents (the Jacobian's one-hot rows; arrays only). `api` names the
    caller in the `BackwardCall` recorded for the explanation layer.
    """
    roots = list(roots)
    seeds, given = _seeds(roots, grads, create_graph, nbatch)
    edges = [out._grad_edge() if out._requires_grad else None for out in roots]
    for i, edge in enumerate(edges):
        if edge is None:  # (also a view made with grad mode off: it requires grad, but has no edge)
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    if not accumulate:  # autograd.grad: its inputs are checked after its outputs, as in PyTorch
        for x in inputs:
            if not x._requires_grad:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph and accumulate:
        warnings.warn(CREATE_GRAPH_CYCLE, UserWarning, stacklevel=warn_stacklevel)
    root, cotangent = (edges[0], seeds[0]) if len(edges) == 1 else (edges, seeds)
    capture = None if inputs is None else {x._grad_edge() for x in inputs}
    call = _record(api, roots, given, seeds, edges, inputs, create_graph)
    belief = state.current().belief  # a misconception diagnosed by running the program as the learner believes
    reached = (sweep if belief is None else belief.sweep)(root, cotangent, nbatch=nbatch, retain_graph=bool(retain_graph),
                                                          create_graph=create_graph, capture=capture)
    if not accumulate:
        results = [_result(reached.get(x._grad_edge()), x, cotangent_batch(seeds[0], nbatch)) for x in inputs]
        if call is not None:
            call.results = [None if r is None else r._data.copy() for r in results]
            call.finished = True
        return results
    targets = inputs if inputs is not None else [acc.variable for acc in reached if type(acc) is AccumulateGrad]
    for x in targets:
        edge = x._grad_edge()
        g = reached.get(edge)
        if g is None:
            continue
        if call is not None:
            call.leaves.append(x)
            call.grads_before.append(None if x._grad is None else x._grad._data.copy())
        x._accumulate(g) if belief is None else belief.accumulate(x, g)
        if type(edge) is AccumulateGrad and edge.post_hooks:
            for hook in list(edge.post_hooks.values()):
                hook(x)
        if call is not None:
            call.grads_after.append(x._grad._data.copy())
    if call is not None:
        call.finished = True
    return None


def tensor_tuple(x) -> tuple:
    return (x,) if isinstance(x, Tensor) else tuple(x)


def grad_output_list(grad_outputs, n: int) -> list | None:
    if grad_outputs is None:
        return None
    return list(tensor_tuple(grad_outputs) if not isinstance(grad_outputs, (list, tuple)) else grad_outputs)


def gradients(outputs, inputs, grad_outputs=None, *, retain_graph=None, create_graph=False, allow_unused=None,
              is_grads_batched=False, materialize_grads=False, api: str) -> tuple:
    """`autograd.grad` for a caller named `api` (the transforms record themselves under their own name)."""
    if is_grads_batched and create_graph:
        raise NotImplementedError("autograd.grad(is_grads_batched=True, create_graph=True) is not supported by "
                                  "this engine")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
                         "allow_unused=False.")
    allow_unused = bool(allow_unused) or materialize_grads
    outputs, inputs = tensor_tuple(outputs), tensor_tuple(inputs)
    results = run_backward(outputs, grad_output_list(grad_outputs, len(outputs)), inputs=inputs,
                           retain_graph=retain_graph, create_graph=create_graph, accumulate=False,
                           nbatch=1 if is_grads_batched else 0, api=api)
    for i, (x, g) in enumerate(zip(inputs, results)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
            if materialize_grads:
                results[i] = Tensor._make(np.zeros(_batch(grad_outputs, is_grads_batched) + x._data.shape,
                                                   dtype=x._data.dtype))
    return tuple(results)


def _batch(grad_outputs, batched: bool) -> tuple:
    if not batched:
        return ()
    first = tensor_tuple(grad_outputs)[0]
    return tuple(first.shape[:1])


def cotangent_batch(seed, nbatch: int) -> tuple:
    return tuple(np.shape(seed._data if isinstance(seed, Tensor) else seed)[:nbatch])


def _seeds(roots: list, grads, create_graph: bool, nbatch: int) -> tuple[list, list]:
    """The cotangent of each root (a Tensor with create_graph, else an array in the root's dtype), and the
    `gradient` arguments as given (arrays, None where implicit)."""
    grads = list(grads) if grads is not None else [None] * len(roots)
    if len(grads) != len(roots):
        raise RuntimeError(f"got {len(roots)} tensors and {len(grads)} gradients")
    seeds, given = [], []
    for i, (out, go) in enumerate(zip(roots, grads)):
        dtype = out._data.dtype
        if go is None:
            if out._requires_grad and out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            seed = np.ones(out._data.shape, dtype=dtype)
            seeds.append(Tensor._make(seed) if create_graph else seed)
            given.append(None)
            continue
        if not isinstance(go, Tensor):
            go = tensor(go) if not isinstance(go, np.ndarray) else Tensor._make(go)
        if go._data.shape[nbatch:] != out._data.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {dtypes.Size(go._data.shape)!r} "
                               f"and output[{i}] has a shape of {dtypes.Size(out._data.shape)!r}.")
        seeds.append(go._convert(dtype) if create_graph else go._data.astype(dtype, copy=False))
        given.append(go._data)
    return seeds, given


def _result(g, x: Tensor, batch: tuple):
    """What autograd.grad returns for input x: a fresh gradient Tensor shaped like x (batch axes first)."""
    if g is None:
        return None
    if isinstance(g, Tensor):
        return g if g._data.shape == x._data.shape else g.expand(*x._data.shape)
    if batch:
        return Tensor._make(np.array(np.broadcast_to(g, batch + x._data.shape), dtype=x._data.dtype))
    return Tensor._make(as_grad(g, x._data))


def _record(api, roots, given, seeds, edges, inputs, create_graph) -> BackwardCall | None:
    """A `BackwardCall` appended to every active recorder before the sweep (so a call that raises is seen)."""
    recorders = active_recorders()
    if not recorders:
        return None
    arrays = [s._data if isinstance(s, Tensor) else s for s in seeds]
    nodes = topological(edges[0]) if len(edges) == 1 else topological(_Roots(edges))[1:]
    call = BackwardCall(roots[0], None if given[0] is None else given[0].copy(), arrays[0], nodes=nodes, api=api,
                        roots=list(roots), gradients=[None if g is None else g.copy() for g in given],
                        seeds=arrays, inputs=None if inputs is None else list(inputs), create_graph=create_graph)
    for recorder in recorders:
        recorder.append(call)
    return call
