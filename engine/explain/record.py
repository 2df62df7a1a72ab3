"""Run a program through the snippet runner and capture every backward call it makes.

Each call is captured *when it is made*: the graph's arrays (leaf values, constants, saved
results) are copied at that moment, so an update after it (`w -= lr * w.grad` under `no_grad`
writes into the leaf's array) cannot change what the explanation computes for that call. The
call's line and the program's expression for the output (`out`, `(t1*t2).mean()`) are read from
the snippet's frame, and a call whose sweep raised is marked with the program's error.

The explanation speaks of the snippet's own variables (`inp`, `tensor2`, `g`), so `Names` maps
the recorded objects back to the names the program bound — by identity, never by value: a leaf by
the Tensor object, a constant by the array it holds (the storage of a tensor that needs no grad, or
its `.T` view), an intermediate result by its `grad_fn`. Names bound when the call was made come
first (a loop rebinds `x`), then those bound at the end. A constant with no name stays a constant
(the formula shows its value), and the weight `v` of `backward(v)` is called what the program's
call passed (`s.backward(v)`), never the first tensor that happens to hold equal numbers. Unnamed
leaves are called x, x_2, … (never a name the program uses).
"""
from __future__ import annotations

import ast
import contextlib
import re
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
    weight: str | None = None         # the program's name for the `gradient` it passed (`v` in y.backward(v))
    derivative_of: tuple | None = None   # (y, x) when the output is the program's ∂y/∂x (a second derivative)
    bound: dict = field(default_factory=dict)   # the snippet's names as they were bound at the call
    error: object = None              # the program's error when this call raised


@dataclass
class Read:
    """Forward mode: the program read a dual tensor's tangent (`fwAD.unpack_dual(y)`), the derivative it asked for."""

    step: object                      # the "unpack_dual" `graph.TangentStep`
    position: int                     # its place in the forward-mode steps (those before it made the tangent)
    after: int                        # how many backward calls the program had made before it (program order)
    line: int | None = None
    expression: str | None = None     # the program's text for the tensor read (`y` in unpack_dual(y))
    bound: dict = field(default_factory=dict)
    overflow: bool = False            # steps before it were not kept (record.TANGENT_BYTES): not explained


@dataclass
class Recording:
    run: object                       # the runner's RunResult
    calls: list[BackwardCall] = field(default_factory=list)
    captured: list[Captured] = field(default_factory=list)
    steps: list = field(default_factory=list)    # forward mode's `graph.TangentStep`s, in program order
    reads: list[Read] = field(default_factory=list)


class _Recorder(list):
    """The list `Tensor.backward` appends its calls to; captures each one at the moment it is made."""

    def __init__(self, source: str) -> None:
        super().__init__()
        self.program = Program(source)
        self.captured: list[Captured] = []
        self.tangents = _Tangents(self)

    def append(self, call) -> None:  # noqa: D102 - called by Tensor.backward before its sweep
        super().append(call)
        frame, line, column = _snippet_position()
        captured = freeze(call)
        captured.line = line
        if frame is not None:
            captured.bound = {**frame.f_globals, **frame.f_locals}
        program = self.program if line is not None and self.program.parsed else None
        api = getattr(call, "api", "Tensor.backward")
        found = backward_call(program, line, column, api) if program else None
        if found is None and program and "." in api and api.split(".")[0] in ("func", "autograd"):
            captured.expression = transform_output(program, line, api.rsplit(".", 1)[-1])
        if found is not None:
            node, target, weight = found
            captured.expression = program.text(target)
            captured.weight = _dotted(weight)
            if isinstance(target, ast.Name):
                captured.derivative_of = derivative_of(program, target.id, node)
        self.captured.append(captured)


class Program:
    """The program's syntax tree, parsed once, and what the recorder reads from it at each call: the calls
    that span a line, the assignments, a node's parent, a node's text. Indexed at first use, once per program:
    a program makes dozens of backward calls, and walking the whole tree for each was most of the recording."""

    def __init__(self, source: str) -> None:
        self.source = source
        try:
            self.tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            self.tree = None
        self._calls: list | None = None
        self._assigns: list | None = None
        self._parents: dict | None = None
        self._lines: list[str] | None = None

    @property
    def parsed(self) -> bool:
        return self.tree is not None

    def _index(self) -> None:
        nodes = list(ast.walk(self.tree))   # breadth first, as every lookup below has always searched
        self._calls = [node for node in nodes if isinstance(node, ast.Call)]
        self._assigns = [node for node in nodes if isinstance(node, ast.Assign)]

    def calls_on(self, line: int) -> list:
        """The calls whose text spans `line`, outermost first."""
        if self._calls is None:
            self._index()
        return [node for node in self._calls if node.lineno <= line <= (node.end_lineno or node.lineno)]

    @property
    def assigns(self) -> list:
        if self._assigns is None:
            self._index()
        return self._assigns

    @property
    def parents(self) -> dict:
        """Each node -> the node it is in (made at the first transform call that needs it)."""
        if self._parents is None:
            self._parents = {child: node for node in ast.walk(self.tree) for child in ast.iter_child_nodes(node)}
        return self._parents

    def text(self, node) -> str | None:
        """`ast.get_source_segment(source, node)` with its white space runs made one space, the source split
        into lines once (the standard library splits it again, a character at a time, for every node)."""
        end, end_column = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
        if end is None or end_column is None:
            return None
        if self._lines is None:
            self._lines = [line for line in _LINE.findall(self.source) if line]
        first, last = node.lineno - 1, end - 1
        if first == last:
            text = self._lines[first].encode()[node.col_offset:end_column].decode()
        else:
            text = "".join([self._lines[first].encode()[node.col_offset:].decode(), *self._lines[first + 1:last],
                            self._lines[last].encode()[:end_column].decode()])
        return " ".join(text.split())


# a line and its end as Python's tokenizer reads them (\r\n, \r or \n; the last line may have none)
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|\Z)")


TANGENT_BYTES = 64 * 2**20   # the copies of forward-mode steps one explanation keeps; past it, no more steps


class _Tangents(list):
    """The forward-mode steps (`graph.TangentStep`) as forward mode reports them; each read of a tangent is
    placed in the program (its line, the text of the tensor read, the names bound then). A step's copies are
    kept up to `TANGENT_BYTES` in all (a long loop in a dual level would outgrow the program's own memory);
    past that, the reads are marked `overflow` and refused, never explained from a partial graph."""

    def __init__(self, recorder: _Recorder) -> None:
        super().__init__()
        self.recorder = recorder
        self.reads: list[Read] = []
        self.kept = 0
        self.overflow = False

    def append(self, step) -> None:  # noqa: D102 - called by engine.forward_ad at each step
        if step.kind != "unpack_dual" and not self.overflow:
            self.kept += sum(a.nbytes for a in (step.value, step.tangent, *step.arrays) if isinstance(a, np.ndarray))
            self.overflow = self.kept > TANGENT_BYTES
        if self.overflow and step.kind != "unpack_dual":
            return
        super().append(step)
        if step.kind != "unpack_dual" or step.tangent is None:
            return
        frame, line, _ = _snippet_position()
        read = Read(step, len(self) - 1, len(self.recorder.captured), line, overflow=self.overflow)
        if frame is not None:
            read.bound = {**frame.f_globals, **frame.f_locals}
        program = self.recorder.program
        if line is not None and program.parsed:
            read.expression = _call_argument(program, line, "unpack_dual")
        self.reads.append(read)


def _call_argument(program: Program, line: int, name: str) -> str | None:
    """The text of the first argument of the call of `name` (`fwAD.unpack_dual(y)`) on `line`."""
    for node in program.calls_on(line):
        if node.args and _called(node) == name:
            return program.text(node.args[0])
    return None


def _called(call: ast.Call) -> str | None:
    """The name a call calls: `f` in `f(x)` and in `torch.func.f(x)`."""
    return call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)


def _snippet_position():
    """The innermost snippet frame (the backward call), its line and column."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename == SNIPPET_FILE:
            column = None
            for index, position in enumerate(frame.f_code.co_positions()):
                if index == frame.f_lasti // 2:
                    column = position[2]
                    break
            return frame, frame.f_lineno, column
        frame = frame.f_back
    return None, None, None


# where each API takes the tensor it differentiates and the gradient it starts from: (position, keyword)
_ARGUMENTS = {"backward": ((0, None), (0, "gradient")), "autograd.backward": ((0, "tensors"), (1, "grad_tensors")),
              "autograd.grad": ((0, "outputs"), (2, "grad_outputs"))}


def backward_call(program: Program, line: int, column: int | None, api: str = "Tensor.backward"):
    """(the call node, the node of the tensor it differentiates, the node of the gradient it was given or
    None) for the call of `api` on `line`, the one nearest `column` when the line has several; None when
    the line has no such call (a transform differentiates a function's output, which has no text)."""
    found = []
    for node in program.calls_on(line):
        kind = _kind(node.func)
        if kind is None or (kind == "autograd.grad") != (api == "autograd.grad"):
            continue
        (at, name), (weight_at, weight_name) = _ARGUMENTS[kind]
        target = node.func.value if kind == "backward" else _argument(node, at, name)
        if target is None:
            continue
        weight = _argument(node, weight_at, weight_name)
        if isinstance(weight, (ast.List, ast.Tuple)) and len(weight.elts) == 1:
            weight = weight.elts[0]
        if isinstance(target, (ast.List, ast.Tuple)) and len(target.elts) == 1:
            target = target.elts[0]
        found.append((node, target, weight))
    if not found:
        return None
    if len(found) > 1 and column is not None:
        found.sort(key=lambda item: abs(item[0].col_offset - column))
    return found[0]


def _kind(func) -> str | None:
    """Which differentiating call this is: `t.backward(…)`, `torch.autograd.backward(…)`, `torch.autograd.grad(…)`."""
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr == "backward":
        return "autograd.backward" if _is_autograd(func.value) else "backward"
    if func.attr == "grad" and _is_autograd(func.value):
        return "autograd.grad"
    return None


def _argument(call: ast.Call, position: int, keyword: str | None):
    if len(call.args) > position:
        return call.args[position]
    return next((k.value for k in call.keywords if keyword is not None and k.arg == keyword), None)


def transform_output(program: Program, line: int, name: str) -> str | None:
    """`f(x)` for the function a transform differentiates on `line` (`grad(f)(x)`, `jvp(f, (x,), (t,))`,
    `torch.autograd.functional.hvp(f, x, v)`): the program's text for the output it never bound."""
    for node in program.calls_on(line):
        if not node.args or _called(node) != name:
            continue
        outer = program.parents.get(node)
        if isinstance(outer, ast.Call) and outer.func is node:   # grad(f)(x)
            primals = outer.args
        elif len(node.args) > 1:                                   # jvp(f, (x,), …), vjp(f, x), hvp(f, x, v)
            primals = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
        else:
            continue
        texts = [program.text(a) for a in [node.args[0], *primals]]
        if None not in texts:
            function = f"({texts[0]})" if isinstance(node.args[0], ast.Lambda) else texts[0]  # not "lambda x: …(x)"
            return f"{function}({', '.join(texts[1:])})"
    return None


def derivative_of(program: Program, name: str, before) -> tuple[str, str] | None:
    """(y, x) when the program bound `name` to ∂y/∂x, the result of `torch.autograd.grad(y, x, …)` made before
    the call `before` (`(dy,) = torch.autograd.grad(y, x, create_graph=True)`): read from the program's text."""
    found = None
    for node in program.assigns:
        if len(node.targets) != 1 or node.lineno >= before.lineno:
            continue
        if not isinstance(node.value, ast.Call) or _kind(node.value.func) != "autograd.grad":
            continue
        target, index = node.targets[0], 0
        if isinstance(target, (ast.Tuple, ast.List)):
            index = next((k for k, t in enumerate(target.elts) if isinstance(t, ast.Name) and t.id == name), None)
            if index is None:
                continue
        elif not (isinstance(target, ast.Name) and target.id == name):
            continue
        outputs, inputs = _argument(node.value, 0, "outputs"), _argument(node.value, 1, "inputs")
        if isinstance(inputs, (ast.Tuple, ast.List)):
            inputs = inputs.elts[index] if index < len(inputs.elts) else None
        elif index:
            inputs = None
        if outputs is not None and inputs is not None and (found is None or node.lineno > found[0]):
            found = (node.lineno, program.text(outputs), program.text(inputs))
    return None if found is None or None in found else found[1:]


def _dotted(node) -> str | None:
    """`v` or `self.v` (names and attributes only: reading them runs no program code)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


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
        with _graph.record_tangents(recorder.tangents):
            yield recorder
    finally:
        _graph._recorders.reset(token)


def record_program(source: str, limits=None) -> Recording:
    """Run `source` with the runner (never raises for the snippet's fault) and record its backward calls and
    its forward-mode steps."""
    from engine.runner import run_snippet

    with _recording(_Recorder(source)) as recorder:
        result = run_snippet(source, limits=limits) if limits is not None else run_snippet(source)
    captured = recorder.captured
    for k, item in enumerate(captured):
        if not item.call.finished:  # its sweep raised: the program stopped there (or caught the error)
            item.error = result.error if k == len(captured) - 1 else "backward raised"
    return Recording(result, list(recorder), captured, list(recorder.tangents), recorder.tangents.reads)


def _tensors(namespace: dict):
    """(name, tensor) for the tensors the program bound, then its modules' parameters (`l1.weight`):
    a name the program bound itself comes first and wins."""
    bound = [(k, v) for k, v in namespace.items() if not k.startswith("_")]
    yield from ((k, v) for k, v in bound if isinstance(v, Tensor))
    for name, module in bound:
        if isinstance(module, Module):
            yield from ((f"{name}.{p}", v) for p, v in module.named_parameters())


class Names:
    """What the program called each tensor, array and graph node — by identity, never by value.

    `namespaces`: the snippet's bindings, most authoritative first (at the call, then at the end)."""

    def __init__(self, *namespaces: dict | None) -> None:
        self._tensor: dict[int, str] = {}
        self._array: dict[int, str] = {}     # the storage of constants: tensors that need no grad (or did not)
        self._views: list = []               # (array, name) of those constants, for their `.T` views
        self._storage: dict[int, str] = {}   # the storage of every bound tensor: a transform's copy of x
        self._leaves: dict[str, int] = {}    # leaf name -> id of the leaf tensor it names
        self._node: dict[int, str] = {}
        self._used: set[str] = set()
        self._keep: list = []  # keep named objects alive so their ids stay theirs
        self._origin: dict = {}
        given: set[str] = set()
        later: list = []   # leaves that need grad now: constants at an earlier call (requires_grad_() after it)
        for namespace in namespaces:
            namespace = namespace or {}
            self._used |= {k for k in namespace if not k.startswith("_")}
            for name, value in _tensors(namespace):
                if id(value) in self._tensor or name in given:  # one name, one object: the first binding
                    continue
                given.add(name)
                self._keep.append(value)
                self._tensor[id(value)] = name
                self._storage.setdefault(id(value._data), name)
                if not value.requires_grad:
                    self._constant(value._data, name)
                elif value._grad_fn is None:
                    later.append((value._data, name))
                if value._grad_fn is not None:   # the tensor's own node (a Function's output k: its edge)
                    self._node.setdefault(id(value._grad_fn), name)
        for data, name in later:   # `tensor2.requires_grad_()` after a call that used tensor2 as a constant
            self._constant(data, name)

    def _constant(self, data, name: str) -> None:
        """The storage a constant of some call may hold answers to its tensor's name (the first name wins)."""
        if id(data) not in self._array:
            self._array[id(data)] = name
            self._views.append((data, name))

    def add_origin(self, origin: dict) -> None:
        """Frozen copies answer to the names of the nodes and arrays they were copied from."""
        self._origin.update(origin)
        self._keep.append(origin)

    def add_results(self, results: dict) -> None:
        """Forward mode's nodes (built from `graph.TangentStep`s) answer to the names of the tensors they made
        (a dual tensor has no grad_fn to be named by): {node: the Tensor it made}."""
        for node, tensor in results.items():
            name = self._tensor.get(id(tensor))
            if name is not None:
                self._node.setdefault(id(node), name)
        self._keep.append(results)

    def same_as(self, tensor, other) -> None:
        """`tensor` answers to `other`'s name when the program bound no name to it: the dual tensor of
        `f(fwAD.make_dual(x, t))` is the program's x with a tangent."""
        if id(tensor) not in self._tensor and id(other) in self._tensor:
            self._tensor[id(tensor)] = self._tensor[id(other)]
            self._keep.append(tensor)

    def used(self) -> set[str]:
        return set(self._used)

    def leaf(self, edge: AccumulateGrad) -> str:
        """The name of a leaf that requires grad: the program's name for that very tensor; for a leaf the
        program did not bind that holds a bound tensor's very storage (`torch.func.grad(f)(x)` differentiates
        `x.detach().requires_grad_()`), that tensor's name; else a fresh x, x_2, …"""
        tensor = edge.variable
        name = self._tensor.get(id(tensor))
        if name is None:
            shared = self._storage.get(id(tensor._data))
            if shared is not None and self._leaves.get(shared, id(tensor)) == id(tensor):
                name = shared
            else:
                name = next(n for n in _fresh_names() if n not in self._used)
            self._used.add(name)
            self._keep.append(tensor)
            self._tensor[id(tensor)] = name
        self._leaves.setdefault(name, id(tensor))
        return name

    def tensor(self, tensor) -> str | None:
        return self._tensor.get(id(tensor))

    def array(self, array, leaves=()) -> str | None:
        """The name of the tensor (needing no grad) whose very array a node used as a constant, if any; never
        one of the call's `leaves`: `x.detach()` holds x's very storage, yet is a constant where x is not."""
        original = self._origin.get(id(array), array)
        name = self._array.get(id(original))
        return None if name in leaves else name

    def transposed(self, array, leaves=()) -> str | None:
        """The name of a constant whose `.T` this array is (nn.Linear's frozen `weight.t()`): the same
        memory, read with the axes swapped — a view of that very tensor, not equal numbers (never one of the
        call's `leaves`, as in `array`)."""
        original = self._origin.get(id(array), array)
        if not isinstance(original, np.ndarray) or original.ndim != 2 or original.base is None:
            return None
        address = original.__array_interface__["data"][0]
        for data, name in self._views:
            if (data.ndim == 2 and data.__array_interface__["data"][0] == address and data.dtype == original.dtype
                    and original.shape == data.shape[::-1] and original.strides == data.strides[::-1]
                    and name not in leaves):
                return name
        return None

    def original(self, node):
        """The recorded node a frozen copy was made from (itself when it is no copy)."""
        return self._origin.get(node, node)

    def node(self, node) -> str | None:
        """The name of the tensor a grad_fn node produced, if the program bound one."""
        original = self._origin.get(node, node)
        return self._node.get(id(original))


def _fresh_names():
    """x, x_2, x_3, … (made one at a time: a program binds few of them)."""
    yield "x"
    yield from (f"x_{k}" for k in range(2, 10_000))
