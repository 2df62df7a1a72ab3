"""Backpropagation one node at a time, as the engine's own sweep performs it.

The sweep runs again on a copy of the recorded graph with the call's cotangent,
and `sweep`'s `on_node` hook reports each node: the cotangent arriving, the rule
it applies (`Op.formula`) and the cotangent it sends to each input. Where a
tensor feeds several nodes, the step that visits it lists the contributions that
were summed; the last steps are the leaves, where the sum is added into `.grad`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.explain.replay import clone, root_of
from engine.graph import AccumulateGrad, sweep


@dataclass
class Flow:
    input: str                 # the op's input name (self, other)
    target: int                # index of the receiving node in the call's graph
    target_label: str
    cotangent: np.ndarray      # what this node sends there
    formula: str
    rule_shape: tuple | None = None   # what the rule gave, when the engine then summed it to the input's shape


@dataclass
class TraceStep:
    node: int                  # index in the call's graph (root first)
    name: str
    label: str                 # "MulBackward0 (g)" / "AccumulateGrad (x)"
    incoming: np.ndarray       # the cotangent arriving (the sum of `summed` when there are several)
    summed: list[tuple[int, np.ndarray]] = field(default_factory=list)  # (from node, contribution)
    flows: list[Flow] = field(default_factory=list)
    grad_before: np.ndarray | None = None   # leaves: .grad before this call
    grad_after: np.ndarray | None = None    # leaves: .grad after (before + incoming)
    hooked: bool = False                    # the tensor's hooks (register_hook) changed what arrived
    module_hook: bool = False               # a module's backward hooks ran at this node (engine.nn.hooks)


def trace_backward(call, names, labels: list[str]) -> list[TraceStep]:
    nodes = call.nodes
    index = {node: k for k, node in enumerate(nodes)}
    copies = clone(nodes)
    for node, copy in copies.items():  # the tensors' hooks ran in the real backward: they run here too
        copy.hooks = node.hooks
    original = {copy: node for node, copy in copies.items()}
    received: dict[int, list] = {}
    steps: list[TraceStep] = []

    needed = _needed(nodes, call.inputs)

    def on_node(copy, g, contributions):
        node = original[copy]
        if node not in needed:
            return
        k = index[node]
        step = TraceStep(k, node.name(), labels[k], np.array(g), summed=received.get(k, []), hooked=bool(copy.hooks),
                         module_hook=node in getattr(call, "module_hooks", ()))
        for i, parent, gi in contributions:
            if original.get(parent, parent) not in needed:
                continue
            target = index[original.get(parent, parent)]
            cotangent = np.array(np.broadcast_to(gi, np.shape(node.arrays[i])))
            step.flows.append(Flow(node.op.inputs[i], target, labels[target], cotangent, node.op.formula[i],
                                   _summed_from(copy, i, g)))
            received.setdefault(target, []).append((k, cotangent))
        steps.append(step)

    root = root_of(nodes)  # a leaf's AccumulateGrad when backward was called on the leaf itself
    reached = sweep(copies.get(root, root), call.seed, retain_graph=True, on_node=on_node)
    for edge, g in reached.items():
        k = index[edge]
        leaf = edge.variable
        if not any(tensor is leaf for tensor in call.leaves):
            continue   # autograd.grad returns it, inputs= leaves it out: this call does not touch its .grad
        before, after = _grads(call, leaf)
        steps.append(TraceStep(k, "AccumulateGrad", labels[k], np.array(np.broadcast_to(g, leaf._data.shape)),
                               summed=received.get(k, []), grad_before=before, grad_after=after,
                               hooked=bool(edge.hooks)))
    return steps


def _summed_from(copy, i: int, g) -> tuple | None:
    """The shape the rule's gradient had when it was larger than input i: broadcasting in the forward pass,
    so the engine summed it to the input's shape after the rule (as PyTorch's engine does: the rule for add's
    self is `grad`, of the output's shape; `sum_to` makes it x's)."""
    with np.errstate(all="ignore"):
        raw = copy.op.vjp[i](g, copy.out, *copy.arrays, **copy.attrs)
    shape = tuple(np.shape(copy.arrays[i]))
    if raw is None or np.size(raw) <= int(np.prod(shape, dtype=np.int64)):
        return None
    return tuple(np.shape(raw))


def _needed(nodes: list, inputs) -> set:
    """The nodes the sweep must visit to reach `inputs` (autograd.grad's, or backward's inputs=); all of
    them when there are none. PyTorch computes nothing along a branch that leads to no wanted input."""
    if inputs is None:
        return set(nodes)
    wanted = {id(x) for x in inputs}
    needed: set = set()
    for node in reversed(nodes):   # root first, so every node comes after the nodes it feeds: leaves first
        if type(node) is AccumulateGrad:
            if id(node.variable) in wanted:
                needed.add(node)
        elif any(p in needed for p in node.parents if p is not None):
            needed.add(node)
    return needed


def _grads(call, leaf):
    for tensor, before, after in zip(call.leaves, call.grads_before, call.grads_after):
        if tensor is leaf:
            return before, after
    return None, None
