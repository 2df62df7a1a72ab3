"""Dual numbers (`torch.autograd.forward_ad`) explained as forward mode computes them: node by node.

Inside a dual level every op that meets a tangent pushes one forward (`engine.forward_ad.propagate`), and
forward mode reports each step to the recorders (`graph.TangentStep`): the dual tensors the program made
(`make_dual`), every op with its inputs' tangents and its result's, and each read of a tangent
(`unpack_dual`): the derivative the program asked for. A read is explained as one forward-mode call:

- its graph is rebuilt from the steps — by identity: an op's input is the dual tensor another step made,
  holding that very tangent object (an in-place op moves its result's tangent onto its target, so a tangent
  seen again is followed too) — as the same `Node`s backward records, with a leaf edge per dual input;
- the Jacobian of that graph (the engine's own sweep), J·t from it, checked against the tangent the program
  read and against a directional finite difference (the forward replayed at x ± h·t);
- each op in program order: its primal result, the tangents coming in, the op record's rule, the tangent out,
  and the same directional difference read at that node.

A tangent that came from outside the op table (a custom Function's `jvp`, `fill_`) has no step to follow:
the read is refused in plain words (`refused`), never explained from a partial graph.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.explain.forward import along, directional
from engine.explain.graph import describe_graph
from engine.explain.jacobian import affordable, close, jacobian_cost, numeric_jacobians, structure
from engine.explain.model import CallExplanation, LeafExplanation
from engine.graph import AccumulateGrad, Node, topological

API = "autograd.forward_ad"


@dataclass
class TangentNode:
    """One op of a dual-number computation, as forward mode ran it."""

    node: int                        # its index in the call's graph (root first)
    op: str                          # the op as programs call it: sin, mul, mm
    inputs: list                     # per input: (graph.Edge, its tangent array, or None: a constant, no tangent)
    value: np.ndarray                # the primal result
    tangent: np.ndarray              # the tangent forward mode gave the result
    finite_difference: np.ndarray | None   # the same, replayed at x ± h·t without any rule (float64)
    agrees: bool | None


def op_name(op) -> str:
    """How a program calls the op (`sin`, `mul`, `mm`): its first method or function, else its node's name."""
    names = op.names
    if names is not None and (names.methods or names.functions):
        return (names.methods or names.functions)[0]
    return op.grad_fn


class _Graph:
    """The graph of forward-mode steps before a read, rebuilt from the steps by identity."""

    def __init__(self, steps: list) -> None:
        self.made: dict = {}        # (id(tensor), id(its tangent)) -> the node or leaf edge that made it
        self.by_tangent: dict = {}  # id(tangent) -> the op node whose result it is (followed after an in-place op)
        self.values: dict = {}      # leaf edge -> the dual tensor's primal array
        self.seeds: list = []       # (leaf edge, its make_dual step), in program order
        self.results: dict = {}     # op node -> the Tensor it made (names)
        self.tangents: dict = {}    # op node -> its result's tangent array
        self.order: list = []       # op nodes in program order
        self.unknown: set = set()   # op nodes with an input whose tangent no step made
        for step in steps:
            if step.kind == "make_dual":
                edge = AccumulateGrad(step.result)
                self.values[edge] = step.value
                self.seeds.append((edge, step))
                self.made[id(step.result), id(step.tangent_tensor)] = edge
            elif step.kind == "op":
                parents = []
                for x, tangent in zip(step.inputs, step.tangent_inputs):
                    source = None if tangent is None else self.source(x, tangent)
                    parents.append(source)
                node = Node(step.op, step.arrays, step.attrs, step.value, tuple(parents))
                if any(t is not None and p is None for t, p in zip(step.tangent_inputs, parents)):
                    self.unknown.add(node)
                self.made[id(step.result), id(step.tangent_tensor)] = node
                self.by_tangent[id(step.tangent_tensor)] = node
                self.results[node] = step.result
                self.tangents[node] = step.tangent
                self.order.append(node)

    def source(self, tensor, tangent):
        return self.made.get((id(tensor), id(tangent))) or self.by_tangent.get(id(tangent))


def explain_read(index: int, read, steps: list, names) -> CallExplanation | None:
    """The forward-mode call a read of a tangent (`record.Read`) makes; None when the program read the tangent
    it gave (`unpack_dual` of a `make_dual` result: there is nothing to explain)."""
    graph = _Graph(steps[: read.position])
    step = read.step
    root = graph.source(step.result, step.tangent_tensor)
    if type(root) is AccumulateGrad:
        return None
    for edge, made in graph.seeds:
        names.same_as(edge.variable, made.primal)
    names.add_results(graph.results)
    shape = step.value.shape
    output_name = names.tensor(step.result) or read.expression or (names.node(root) if root is not None else None) \
        or "y"
    explained = CallExplanation(index, output_name, shape, step.value.copy(), None, np.zeros(shape, step.value.dtype),
                                [], [], [], line=read.line, names=names, api=API, returns=True)
    if read.overflow:
        explained.refused = "dual_too_long"
        return explained
    nodes = [] if root is None else topological(root)
    if root is None or graph.unknown.intersection(nodes):
        explained.refused = "dual_unknown"
        return explained
    explained.nodes = nodes
    explained.leaf_values = {edge: graph.values[edge] for edge in nodes if type(edge) is AccumulateGrad}
    explained.graph = describe_graph(nodes, names)
    for entry, node in zip(explained.graph, nodes):   # forward mode's graph: ops as programs call them, its
        if type(node) is AccumulateGrad:               # dual inputs (no leaf: nothing requires grad), no
            entry.name, entry.kind = "make_dual", "input"   # backward node, nothing saved for one
        else:
            entry.name = op_name(node.op)
        entry.saved, entry.saved_items = [], []
    reached = set(nodes)
    seeds = [(edge, made) for edge, made in graph.seeds if edge in reached]
    edges = [edge for edge, _ in seeds]
    if not affordable(nodes, shape, edges):
        explained.too_large, _ = jacobian_cost(nodes, shape, edges)
        explained.refused = "dual_too_large"
        return explained
    jacobians = numeric_jacobians(nodes, shape, step.value.dtype, edges)
    for edge, J in zip(edges, jacobians):
        value = graph.values[edge]
        zero = np.zeros(value.shape)   # v = 0: no backward ran; J·t is in `forward`
        explained.leaves.append(LeafExplanation(names.leaf(edge), value.shape, value.copy(), J, structure(J), zero,
                                                zero, None, zero, True, None, None, None))
    tangents = [np.asarray(made.tangent, dtype=np.float64) for _, made in seeds]
    differences = directional(nodes, edges, tangents, explained.leaf_values)
    explained.forward = along(explained, nodes, edges, tangents, step.tangent, explained.leaf_values, differences)
    position = {node: k for k, node in enumerate(nodes)}
    for node in (n for n in graph.order if n in reached):
        k = position[node]
        inputs = []
        for edge, parent in zip(explained.graph[k].inputs, node.parents):
            inputs.append((edge, None if parent is None else _tangent(parent, graph, seeds)))
        fd = None if differences is None else differences[node]
        agrees = None if fd is None else close(fd, graph.tangents[node], rtol=1e-3, atol=1e-4)
        explained.forward.steps.append(TangentNode(k, op_name(node.op), inputs, node.out, graph.tangents[node], fd,
                                                   agrees))
    return explained


def _tangent(parent, graph: _Graph, seeds: list) -> np.ndarray:
    if type(parent) is AccumulateGrad:
        return next(made.tangent for edge, made in seeds if edge is parent)
    return graph.tangents[parent]
