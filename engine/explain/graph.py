"""The computation graph of one backward call, described for display.

Nodes are listed from the output back to the leaves, in the order the engine
stores them (root first, each node before the nodes that feed it). Each op node
says which tensors it saved for backward (`Op.saves`, as PyTorch saves them),
and each edge says what feeds the node: another node, a leaf, or a constant.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.graph import AccumulateGrad
from engine.ops.record import saved_tensors


@dataclass
class Edge:
    input: str                 # the op's name for this input (self, other, exponent…)
    source: int | None         # index of the node that produced it (None: a constant)
    label: str                 # what it is: "x (leaf)", "g", "constant 2", "tensor2 (2x3, no grad)"
    constant: dict | None = None   # a constant input: {"value": "2"} or {"name": "tensor2", "shape": [2, 3]}


@dataclass
class GraphNode:
    index: int
    name: str                  # MulBackward0, AccumulateGrad
    kind: str                  # "output", "intermediate" or "leaf"
    tensor: str | None         # the program's name for the tensor this node made (or the leaf)
    shape: list[int]
    inputs: list[Edge] = field(default_factory=list)
    saved: list[str] = field(default_factory=list)   # "self = x (3x3)", "result (3x3)"
    saved_items: list = field(default_factory=list)  # the same as (input name or "result", tensor, shape)
    formula: list[str] = field(default_factory=list)  # the VJP rule per differentiable input


def shape_text(shape) -> str:
    """5x5, length 2, scalar."""
    shape = tuple(shape)
    if not shape:
        return "scalar"
    return f"length {shape[0]}" if len(shape) == 1 else "x".join(map(str, shape))


def _constant_name(value, names, leaves) -> str | None:
    """The program's name for a constant array, or `W.T` for a view of a named W read transposed (nn.Linear's
    frozen weight, saved as `weight.t()`): the chain rule's formulas name it so too."""
    name = names.array(value, leaves)
    if name is None and (base := names.transposed(value, leaves)) is not None:
        return f"{base}.T"
    return name


def constant_info(value, names, leaves=()) -> dict:
    """A constant input as data, for the panels to word in their language."""
    if isinstance(value, np.ndarray):
        name = _constant_name(value, names, leaves)
        if value.size == 1 and name is None:
            return {"value": f"{value.item():g}"}
        return {"name": name, "shape": list(value.shape)}
    return {"value": f"{value:g}" if isinstance(value, (int, float)) else repr(value)}


def describe_constant(value, names, leaves=()) -> str:
    if isinstance(value, np.ndarray):
        name = _constant_name(value, names, leaves)
        if value.size == 1 and name is None:
            return f"constant {value.item():g}"
        return f"{name or 'constant'} ({shape_text(value.shape)}, no grad)"
    return f"constant {value:g}" if isinstance(value, (int, float)) else f"constant {value!r}"


def describe_graph(nodes: list, names) -> list[GraphNode]:
    index = {node: k for k, node in enumerate(nodes)}
    leaves = {names.leaf(node) for node in nodes if type(node) is AccumulateGrad}
    described = []
    for k, node in enumerate(nodes):
        if type(node) is AccumulateGrad:
            described.append(GraphNode(k, "AccumulateGrad", "leaf", names.leaf(node),
                                       list(node.variable._data.shape)))
            continue
        kind = "output" if k == 0 else "intermediate"
        entry = GraphNode(k, node.name(), kind, names.node(node), list(np.shape(node.out)),
                          formula=list(node.op.formula))
        labels = {}
        for i, value in enumerate(node.arrays[: len(node.op.inputs)]):
            parent = node.parents[i] if i < len(node.parents) else None
            constant = None
            if parent is None:
                label = describe_constant(value, names, leaves)
                constant = constant_info(value, names, leaves)
            elif type(parent) is AccumulateGrad:
                label = f"{names.leaf(parent)} (leaf)"
            else:
                label = names.node(parent) or f"#{index[parent]} {parent.name()}"
            entry.inputs.append(Edge(node.op.inputs[i], index.get(parent), label, constant))
            labels[node.op.inputs[i]] = (label, np.shape(value))
        # what this node saved, as `grad_fn._saved_*` shows it: what the op record declares, an input only for
        # another input's gradient that is needed (`x * w` with w not requiring grad saves w, not x), as dispatch
        # does (`saved_tensors`); the result whichever input needs a gradient (`x ** w` saves it for w's rule)
        wanted = sum(1 << i for i, parent in enumerate(node.parents) if parent is not None)
        kept = {node.op.inputs[i] for i in saved_tensors(node.op, wanted)[0]}
        for saved in node.op.saves:
            if saved in node.op.inputs and saved not in kept:
                continue
            if saved == "result":
                entry.saved.append(f"result ({shape_text(np.shape(node.out))})")
                entry.saved_items.append(("result", None, list(np.shape(node.out))))
            elif saved in labels:
                label, shape = labels[saved]
                if label.startswith("#"):  # an unnamed result: the edge `self:` below it in the tree names it
                    entry.saved.append(f"{saved} ({shape_text(shape)})")
                    entry.saved_items.append((saved, None, list(shape)))
                    continue
                entry.saved.append(f"{saved} = {label.split(' (')[0]} ({shape_text(shape)})")
                entry.saved_items.append((saved, label.split(' (')[0], list(shape)))
            else:
                entry.saved.append(saved)
                entry.saved_items.append((saved, None, None))
        described.append(entry)
    return described
