"""Run a program through the snippet runner and capture every backward call it makes.

Each call is captured *when it is made*: the graph's arrays (leaf values, constants, saved
results) are copied at that moment, so an update after it (`w -= lr * w.grad` under `no_grad`
writes into the leaf's array) cannot change what the explanation computes for that call. The
call's line and the program's expression for the output (`out`, `(t1*t2).mean()`) are read from
the snippet's frame, and a call whose sweep raised is marked with the program's error.

The explanation speaks of the snippet's own variables (`inp`, `tensor2`, `g`), so `Names` maps
the recorded objects back to the names the program bound: leaf tensors and constant tensors by
the identity of their arrays, intermediate results by the identity of their `grad_fn`. Unnamed
leaves are called x, x_2, … (never a name the program uses).
"""
from __future__ import annotations

import ast
import contextlib
import sys
from dataclasses import dataclass, field

import numpy as np

from engine import graph as _graph
from engine.graph import AccumulateGrad, BackwardCall, Node
from engine.nn.modules import Module
from engine.tensor import Tensor

SNIPPET_FILE = "<snippet>"


@dataclass
class Captured:
    """What one backward call saw, copied at the call."""

    call: BackwardCall
    nodes: list                       # frozen copies of the call's op nodes (AccumulateGrad edges kept)
    leaf_values: dict                 # {AccumulateGrad: the leaf's array at the call}
    origin: dict                      # {frozen node: recorded node}, {id(array copy): recorded array}
    line: int | None = None
    expression: str | None = None     # the program's expression for the output, e.g. "out", "(a*b).mean()"
    error: object = None              # the program's error when this call raised


@dataclass
class Recording:
    run: object                       # the runner's RunResult
    calls: list[BackwardCall] = field(default_factory=list)
    captured: list[Captured] = field(default_factory=list)


class _Recorder(list):
    """The list `Tensor.backward` appends its calls to; captures each one at the moment it is made."""

    def __init__(self, source: str) -> None:
        super().__init__()
        self.source = source
        self.captured: list[Captured] = []
        self._tree = None

    def append(self, call) -> None:  # noqa: D102 - called by Tensor.backward before its sweep
        super().append(call)
        line, column = _snippet_position()
        captured = freeze(call)
        captured.line = line
        captured.expression = self._expression(line, column)
        self.captured.append(captured)

    def _expression(self, line, column) -> str | None:
        if line is None:
            return None
        if self._tree is None:
            try:
                self._tree = ast.parse(self.source)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                self._tree = False
        if not self._tree:
            return None
        return backward_receiver(self._tree, self.source, line, column)


def _snippet_position() -> tuple[int | None, int | None]:
    """The line and column of the innermost snippet frame (the backward call)."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename == SNIPPET_FILE:
            column = None
            for index, position in enumerate(frame.f_code.co_positions()):
                if index == frame.f_lasti // 2:
                    column = position[2]
                    break
            return frame.f_lineno, column
        frame = frame.f_back
    return None, None


def backward_receiver(tree, source: str, line: int, column: int | None) -> str | None:
    """The program's text for the tensor a `.backward(…)` (or `torch.autograd.backward(t, …)`) on
    `line` was called on; the call nearest `column` when the line has several."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        if node.func.attr != "backward" or not (node.lineno <= line <= (node.end_lineno or node.lineno)):
            continue
        target = node.func.value
        if _is_autograd(target):
            if not node.args:
                continue
            target = node.args[0]
        found.append((node, target))
    if not found:
        return None
    if len(found) > 1 and column is not None:
        found.sort(key=lambda pair: abs(pair[0].col_offset - column))
    text = ast.get_source_segment(source, found[0][1])
    return None if text is None else " ".join(text.split())


def _is_autograd(node) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "autograd" or (
        isinstance(node, ast.Name) and node.id == "autograd")


def freeze(call: BackwardCall) -> Captured:
    """Copies of the graph's op nodes with copies of their arrays, wired like the recorded ones."""
    copies: dict = {}
    origin: dict = {}
    for node in reversed(call.nodes):
        if not isinstance(node, Node):
            continue
        arrays = tuple(_copy(a, origin) for a in node.arrays)
        parents = tuple(copies.get(p, p) for p in node.parents)
        frozen = Node(node.op, arrays, node.attrs, _copy(node.out, origin), parents)
        frozen.hooks = dict(node.hooks) if node.hooks else None  # the tensor's hooks as they were at the call
        copies[node] = frozen
        origin[frozen] = node
    nodes = [copies.get(n, n) for n in call.nodes]
    leaf_values = {}
    for node in nodes:
        if type(node) is AccumulateGrad:
            leaf_values[node] = np.array(node.variable._data, copy=True)
    return Captured(call, nodes, leaf_values, origin)


def _copy(array, origin: dict):
    if isinstance(array, np.ndarray):
        copy = array.copy()
        origin[id(copy)] = array
        origin.setdefault("_keep", []).append(copy)
        return copy
    return array


@contextlib.contextmanager
def _recording(recorder: _Recorder):
    token = _graph._recorders.set(_graph._recorders.get() + (recorder,))
    try:
        yield recorder
    finally:
        _graph._recorders.reset(token)


def record_program(source: str, limits=None) -> Recording:
    """Run `source` with the runner (never raises for the snippet's fault) and record its backward calls."""
    from engine.runner import run_snippet

    with _recording(_Recorder(source)) as recorder:
        result = run_snippet(source, limits=limits) if limits is not None else run_snippet(source)
    captured = recorder.captured
    for k, item in enumerate(captured):
        reached = any(type(n) is AccumulateGrad for n in item.nodes)
        if reached and not item.call.grads_after:  # its sweep raised: the program stopped there
            item.error = result.error if k == len(captured) - 1 else "backward raised"
    return Recording(result, list(recorder), captured)


def _tensors(namespace: dict):
    """(name, tensor) for the tensors the program bound, then its modules' parameters (`l1.weight`):
    a name the program bound itself comes first and wins."""
    bound = [(k, v) for k, v in namespace.items() if not k.startswith("_")]
    yield from ((k, v) for k, v in bound if isinstance(v, Tensor))
    for name, module in bound:
        if isinstance(module, Module):
            yield from ((f"{name}.{p}", v) for p, v in module.named_parameters())


class Names:
    """What the program called each tensor, array and graph node."""

    def __init__(self, namespace: dict | None) -> None:
        self._tensor: dict[int, str] = {}
        self._array: dict[int, str] = {}
        self._node: dict[int, str] = {}
        self._used: set[str] = set(k for k in (namespace or {}) if not k.startswith("_"))
        self._keep: list = []  # keep named objects alive so their ids stay theirs
        self._origin: dict = {}
        for name, value in _tensors(namespace or {}):
            self._keep.append(value)
            self._tensor.setdefault(id(value), name)
            self._array.setdefault(id(value._data), name)
            if value.grad_fn is not None:
                self._node.setdefault(id(value.grad_fn), name)

    def add_origin(self, origin: dict) -> None:
        """Frozen copies answer to the names of the nodes and arrays they were copied from."""
        self._origin.update(origin)
        self._keep.append(origin)

    def equal_tensor(self, array) -> str | None:
        """The name of a tensor the program bound that holds exactly these values (the `v` it passed)."""
        array = np.asarray(array)
        for value in self._keep:
            if isinstance(value, Tensor) and value._data.shape == array.shape and np.array_equal(value._data, array):
                return self._tensor.get(id(value))
        return None

    def used(self) -> set[str]:
        return set(self._used)

    def leaf(self, edge: AccumulateGrad) -> str:
        """The name of a leaf that requires grad (a fresh x, x_2, … when the program did not bind one)."""
        tensor = edge.variable
        name = self._tensor.get(id(tensor)) or self._array.get(id(tensor._data))
        if name is None:
            name = next(n for n in ("x", *(f"x_{k}" for k in range(2, 10_000))) if n not in self._used)
            self._used.add(name)
            self._keep.append(tensor)
            self._tensor[id(tensor)] = name
        return name

    def tensor(self, tensor) -> str | None:
        return self._tensor.get(id(tensor))

    def array(self, array) -> str | None:
        """The name of a constant tensor whose array a node used, if the program bound one."""
        original = self._origin.get(id(array), array)
        return self._array.get(id(original))

    def node(self, node) -> str | None:
        """The name of the tensor a grad_fn node produced, if the program bound one."""
        original = self._origin.get(node, node)
        return self._node.get(id(original))
