"""The recorded graph and the reverse sweep that walks it.

A `Node` is what PyTorch calls a `grad_fn`: the op that made a tensor, the
arrays its rule needs, and the nodes of its inputs (`next_functions`). Leaves
that require grad end in an `AccumulateGrad`. `sweep` pushes cotangents from a
root back to the leaves using the rules of `engine.ops`; with leading
batch axes on the cotangent it computes many vector-Jacobian products at once.
"""
from __future__ import annotations

import contextlib
import contextvars
import itertools
import operator
import os
import traceback
import warnings
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine import node_hooks, state, xp
from engine.ops import Op
from engine.xp import sum_to

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they have "
    "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
    "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
    "if you need to access saved tensors after calling backward."
)


_UNWRITTEN = (0,)  # the version of a tensor never written in place (its `_vc` is None until then)
_NAMESPACED = frozenset({"CopySlices", "CopyBackwards", "NotImplemented"})


class Node:
    """A backward node (`grad_fn`): which op made a tensor, from which inputs.

    The nodes of a program's graph are of a class named as PyTorch's (`type(y.grad_fn).__name__` is
    `MulBackward0`): make them with `node_class(Node, op)(op, ...)`. A plain `Node(...)` is the explanation
    layer's working copy."""

    __slots__ = ("op", "arrays", "attrs", "out", "parents", "freed", "retained", "versions", "hooks", "seq",
                 "__weakref__")

    def __init__(self, op: Op, arrays: tuple, attrs: dict, out: np.ndarray, parents: tuple) -> None:
        self.op = op
        self.arrays = arrays      # the inputs as arrays (or Python scalars), in the op's order
        self.attrs = attrs
        self.out = out
        self.parents = parents    # per input: a Node, an AccumulateGrad, or None (no grad needed)
        self.freed = False
        self.retained = None      # the output Tensor, when it called retain_grad()
        self.versions = ()        # [(saved Tensor, its version when saved, saved as this node's output?)]
        self.hooks = None         # the output Tensor's hooks (register_hook), run on its gradient
        self.seq = next(_SEQUENCE)  # made after every node it reads: the sweep's order (`topological`)

    def register_prehook(self, hook):
        """`hook(grad_outputs)` before this node runs; a tuple it returns replaces grad_outputs."""
        return node_hooks.register(self, True, hook)

    def register_hook(self, hook):
        """`hook(grad_inputs, grad_outputs)` after this node ran; a tuple it returns replaces grad_inputs."""
        return node_hooks.register(self, False, hook)

    @classmethod
    def named(cls, op: Op) -> type:
        """A class for the nodes named `op.grad_fn`: it differs from `cls` in nothing but its name."""
        return type(op.grad_fn, (cls,), {"__slots__": (), "__doc__": cls.__doc__})

    def name(self) -> str:
        """PyTorch's node name: C++ nodes outside the generated ones are namespaced (torch::autograd::CopySlices)."""
        name = self.op.grad_fn
        return f"torch::autograd::{name}" if name in _NAMESPACED else name

    @property
    def next_functions(self) -> tuple:
        return tuple(output_of(p) for p in self.parents)

    def __repr__(self) -> str:
        where = "torch.autograd.function." if self.op.custom else ""  # a Python Function's node class lives there
        return f"<{where}{self.op.grad_fn} object at {id(self):#x}>"


def output_of(node) -> tuple:
    """(grad_fn, output number) as PyTorch shows an edge: a custom Function with several outputs is one node, and
    output k's edge here (a node of its own, `OUTPUT_NR` in its attrs, handing its gradient to that node's
    packed one: the sweep's one mechanism) is shown as (that node, k)."""
    if isinstance(node, Node) and OUTPUT_NR in node.attrs:
        return node.parents[0], node.attrs[OUTPUT_NR]
    return node, 0


OUTPUT_NR = "output_nr"
_NODE_CLASSES: dict[type, dict[str, type]] = {}


def node_classes(base: type) -> dict[str, type]:
    """`base`'s node classes made so far, by name: dispatch reads its own from here before calling `node_class`
    (a lookup by the op's name, a string whose hash is kept, costs every op less than a call)."""
    return _NODE_CLASSES.setdefault(base, {})


def node_class(base: type, op: Op) -> type:
    """The class of `op`'s nodes: `base` (Node or a subclass) named as PyTorch names the op's node, made once per
    name. (A class per name rather than a `__new__` that picks it: a Python `__new__` costs every op a call.)"""
    made = node_classes(base)
    kind = made.get(op.grad_fn)
    if kind is None:
        kind = made[op.grad_fn] = base.named(op)
    return kind


class AccumulateGrad:
    """The sink at a leaf that requires grad: backward adds into `variable.grad` here."""

    __slots__ = ("variable", "hooks", "post_hooks", "seq", "__weakref__")
    parents: tuple = ()

    def __init__(self, variable) -> None:
        self.variable = variable
        self.seq = next(_SEQUENCE)
        self.hooks = None         # the leaf's register_hook hooks, run on its gradient before accumulation
        self.post_hooks = None    # register_post_accumulate_grad_hook hooks, run after

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    @property
    def next_functions(self) -> tuple:
        return ()

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {id(self):#x}>"


class ViewWithoutGrad:
    """What a view made with grad mode off (`no_grad`, `inference_mode`) of a tensor that requires grad has in place
    of an AccumulateGrad: PyTorch gives such a view requires_grad=True but no edge (gradients through it go nowhere,
    its hooks never run), and refuses to change it in place once grad mode is on, with this message."""

    __slots__ = ("message",)

    def __init__(self, created: str, block: str, mode: str) -> None:
        self.message = (f"A view was created in {created} mode and is being modified inplace {mode}. Given that this use "
                        "case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both "
                        f"the view and the inplace either both inside the {block} block (if you don't want the inplace "
                        "to be tracked) or both outside (if you want the inplace to be tracked).")


VIEW_IN_NO_GRAD = ViewWithoutGrad("no_grad", "no_grad", "with grad mode enabled")
VIEW_IN_INFERENCE = ViewWithoutGrad("inference", "inference_mode", "in normal mode")


_TENSOR_TYPES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
                 "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def check_versions(node: Node) -> None:
    """PyTorch's error when a tensor this node saved was changed in place after it was saved."""
    for saved, version, is_output in node.versions:
        # a saved input is its Tensor; a saved output, the Tensor's version cell (see `tensor._run`)
        current = saved[0] if is_output else saved._version
        if current != version:
            data = node.out if is_output else saved._data
            maker = node if is_output else saved.grad_fn
            made_by = "" if maker is None else f", which is output 0 of {_forward_name(maker.name())},"
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace operation: "
                f"[torch.{_TENSOR_TYPES[data.dtype.name]}Tensor [{', '.join(map(str, data.shape))}]]{made_by} "
                f"is at version {current}; expected version {version} instead. Hint: enable anomaly "
                "detection to find the operation that failed to compute its gradient, with "
                "torch.autograd.set_detect_anomaly(True, check_nan=False).")


def _forward_name(node_name: str) -> str:
    """The op as PyTorch's in-place error names the node that made a tensor: `TanhBackward0` is Tanh,
    `PowBackward1` is Pow1 (its overload kept), CopySlices stays as it is."""
    op, found, overload = node_name.rpartition("Backward")
    return node_name if not found else op + ("" if overload == "0" else overload)


def topological(root) -> list:
    """Nodes reachable from `root`, each before every node it feeds: newest first. A node is made after the
    nodes it reads (its parents exist when it is made), so the order they were made in is a topological
    one; PyTorch's engine orders the nodes it runs by the same sequence numbers."""
    found, stack = {root}, [root]
    while stack:
        for parent in stack.pop().parents:
            if parent is not None and parent not in found:
                found.add(parent)
                stack.append(parent)
    return sorted(found, key=_seq, reverse=True)


_SEQUENCE = itertools.count()  # every node's number, in the order nodes are made (PyTorch's sequence_nr)
_seq = operator.attrgetter("seq")


def guard_shape(shape, work: int = 0, itemsize: int | None = None) -> None:
    """Report a shape about to be made outside an op's dispatch (a factory, a Jacobian; `itemsize` its bytes
    per element when known) to the size guard of `engine.state`, which may refuse it. Ops report theirs in
    `engine.tensor._run`, from their records' shape functions."""
    guard = state.current().size_guard
    if guard is not None:
        guard(tuple(shape), work, itemsize)


class _Roots:
    """Several outputs differentiated at once (autograd.grad([y1, y2], ...)): a node feeding all of them."""

    __slots__ = ("parents", "seq")

    def __init__(self, edges) -> None:
        self.parents = tuple(edges)
        self.seq = next(_SEQUENCE)


def sweep(root, cotangent, *, nbatch: int = 0, retain_graph: bool = False, on_node=None,
          create_graph: bool = False, capture=None) -> dict:
    """Push `cotangent` from `root` to the leaves; return {AccumulateGrad: cotangent} for every leaf.

    `root` may be a list of edges, with a list of cotangents (several outputs at once). With
    `create_graph` the cotangents are Tensors and every rule runs on Tensors in grad mode, so the backward
    pass is recorded as a graph of its own (higher-order gradients); without it they are arrays, with
    `nbatch` leading batch axes (many vector-Jacobian products at once). Nodes in `capture` also have the
    cotangent that reached them returned (the gradient of a non-leaf tensor: autograd.grad, inputs=).
    `on_node(node, g, contributions)` is called for each node visited (the explanation layer's trace).
    This is the only loop over a graph's nodes; `engine.backward.run_backward` is the only caller that
    differentiates for a program (the explanation layer replays copies through it).
    """
    if isinstance(root, list):
        grads: dict[Any, Any] = {}
        for edge, g in zip(root, cotangent):
            grads[edge] = g if edge not in grads else grads[edge] + g
        order = topological(_Roots(root))[1:]
    else:
        order = topological(root)
        grads = {root: cotangent}
    if not create_graph:
        return _sweep(order, grads, nbatch, retain_graph, on_node, capture, None)
    with xp.tensors.enable_grad():
        return _sweep(order, grads, 0, retain_graph, on_node, capture, xp.tensors)


def _sweep(order, grads, nbatch, retain_graph, on_node, capture, tensors) -> dict:
    """`sweep`'s loop: on arrays (`tensors` None) or, recorded, on Tensors (`tensors`: `engine.xp_tensor`)."""
    leaves = {}
    modes = state.current()
    anomaly, guard, belief = modes.anomaly and modes.check_nan, modes.size_guard, modes.belief
    # grad_fn hooks, looked up per node only when some node has them (a WeakKeyDictionary's truth is a Python call)
    hooked = node_hooks.hooked if nbatch == 0 and len(node_hooks.hooked) else None
    for node in order:
        g = grads.pop(node, None)
        if g is None:
            continue
        if tensors is not None:
            g = tensors.as_tensor(g)
        if node.hooks is not None and nbatch == 0:
            g = _run_hooks(node, g)
        if type(node) is AccumulateGrad:
            leaves[node] = g
            continue
        hooks = None if hooked is None else hooked.get(node)
        if hooks is not None:
            g = hooks.run_pre(node, g)
            before = {parent: grads.get(parent) for parent in node.parents if parent is not None}
        if capture is not None and node in capture:
            leaves[node] = g
        if node.freed and node.op.saves:
            raise RuntimeError(SECOND_BACKWARD)
        for saved, version, is_output in node.versions:  # (check_versions' test, without its call)
            if (saved if is_output else saved._vc or _UNWRITTEN)[0] != version:  # (a version cell: see `tensor._run`)
                check_versions(node)
        if node.retained is not None and nbatch == 0:
            node.retained._accumulate(g)
        arrays, attrs, vjp = node.arrays, node.attrs, node.op.vjp
        if tensors is None:
            out, inputs = node.out, arrays
        else:  # the rules read Tensors: the saved values, as edges of the graph they came from
            out, inputs = tensors.node_values(node)
        contributions = [] if on_node is not None or hooks is not None else None
        for i, parent in enumerate(node.parents):
            if parent is None:
                continue
            if guard is not None:  # a batch of cotangents can outgrow every tensor
                guard(tuple(g.shape[:nbatch]) + np.shape(arrays[i]))
            rule = vjp[i] if belief is None else belief.vjp(node, i, vjp[i])  # a misconception's rule, or PyTorch's
            gi = rule(g, out, *inputs, **attrs) if attrs else rule(g, out, *inputs)  # (`**{}` would make a dict)
            if gi is None:  # an undefined gradient (PyTorch's norm with p=0): nothing flows
                continue
            array = arrays[i]
            if tensors is not None:
                gi = tensors.fit(gi, array)
                if anomaly and np.isnan(gi._data).any():
                    anomaly_error(node, i)
            else:
                if (gi.shape[nbatch:] if nbatch else gi.shape) != array.shape:
                    gi = sum_to(gi, array.shape, nbatch)
                if gi.dtype is not array.dtype and gi.dtype != array.dtype and gi.dtype != object:  # input's dtype
                    gi = gi.astype(array.dtype)
                if anomaly and gi.dtype != object and np.isnan(gi).any():
                    anomaly_error(node, i)
            previous = grads.get(parent)
            grads[parent] = gi if previous is None else previous + gi
            if contributions is not None:
                contributions.append((i, parent, gi))
        if hooks is not None:
            hooks.run_post(node, g, contributions, grads, before)
        if on_node is not None:
            on_node(node, g, contributions)
        if not retain_graph:
            node.freed = True
    return leaves


def _run_hooks(node, g):
    """A tensor's hooks, in the order registered, each seeing the previous one's result (a hook that
    returns None leaves the gradient as it is). Numbers in, numbers out; Tensors in, Tensors out."""
    wrap = not xp.is_tensor(g)
    t = xp.tensors.constant(g) if wrap else g
    for hook in list(node.hooks.values()):
        result = hook(t)
        if result is not None:
            if not xp.is_tensor(result):
                raise TypeError(f"hook '{getattr(hook, '__name__', 'hook')}' returned a {type(result).__name__}; a "
                                "hook must return a Tensor or None")
            if tuple(result.shape) != tuple(t.shape):
                raise RuntimeError(f"hook '{getattr(hook, '__name__', 'hook')}' has changed the size of value")
            t = result
    return t._data if wrap else t


# --- anomaly detection (torch.autograd.set_detect_anomaly) --------------------------------------------------
traces: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # node -> the forward call's stack


_ENGINE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def record_trace(node) -> None:
    """The forward call's stack as PyTorch reports it: the program's own frames only (PyTorch's ops are
    C++, so its traces never show the library; ours would show the engine, runner and sandbox)."""
    frames = [frame for frame in traceback.extract_stack()
              if not frame.filename.startswith((_ENGINE_DIR, "<frozen "))]
    traces[node] = "".join(traceback.format_list(frames))


def anomaly_error(node, index: int) -> None:
    """PyTorch's report: a warning with the forward trace of the op, then the error naming it."""
    name = node.name()
    warnings.warn(f"Error detected in {name}. Traceback of forward call that caused the error:\n"
                  f"{traces.get(node, '')}", UserWarning, stacklevel=4)
    raise RuntimeError(f"Function '{name}' returned nan values in its {index}th output.")


def as_grad(g, like: np.ndarray) -> np.ndarray:
    """A fresh, writable gradient array with `like`'s shape and dtype: the one way a cotangent becomes a
    `.grad` or an `autograd.grad` result (a 0-dim gradient stays a 0-dim array, never a numpy scalar)."""
    return np.array(np.broadcast_to(g, like.shape), dtype=like.dtype)


def accumulate(grad: np.ndarray, g) -> None:
    """Add a cotangent into an existing gradient array, in place, as PyTorch's AccumulateGrad does."""
    np.add(grad, g, out=grad, casting="unsafe")


def pullback(root, cotangents, edges, *, nbatch: int = 0, retain_graph: bool = False) -> list:
    """What `sweep` delivers to each leaf edge, broadcast to the leaf's shape (batch axes first), zeros
    where nothing arrives: how `jacobian`, `vjp` and the explanation layer read a sweep."""
    reached = sweep(root, cotangents, nbatch=nbatch, retain_graph=retain_graph)
    batch = cotangents.shape[:nbatch]
    rows = []
    for edge in edges:
        shape = batch + edge.variable._data.shape
        g = reached.get(edge)
        rows.append(np.zeros(shape, dtype=cotangents.dtype) if g is None else np.broadcast_to(g, shape))
    return rows


# --- recording backward calls for the explanation layer ------------------------------------------
@dataclass
class BackwardCall:
    """One differentiation a program asked for, recorded by `engine.backward.run_backward` before its sweep.

    `api` names the entry point: "Tensor.backward", "autograd.backward", "autograd.grad", "func.grad",
    "func.grad_and_value", "func.vjp", "func.jvp", "func.jacrev", "func.jacfwd", "func.hessian",
    "autograd.functional.jacobian" (…hessian, vjp, jvp, vhp, hvp). One transform may make several calls (a
    Jacobian in blocks of rows, a jvp's two sweeps).

    - `output`: the first root (the Tensor `backward` was called on); `roots`: every output differentiated.
    - `gradient` / `gradients`: the `gradient` (grad_outputs) argument of the first / of each root, as an
      array, None where implicit (a one-element root).
    - `seed` / `seeds`: the cotangent actually used for the first / each root (ones where implicit); with
      leading batch axes for a batched sweep (a Jacobian's one-hot rows).
    - `inputs`: the `inputs` differentiated for (autograd.grad, backward(inputs=…)), None for every leaf.
    - `create_graph`: whether the backward was recorded as a graph (higher-order derivatives).
    - `leaves`, `grads_before`, `grads_after`: for calls that accumulate into `.grad`, the tensors that received
      a gradient and their `.grad` arrays before (None if unset) and after.
    - `results`: for calls that return gradients (autograd.grad, transforms), what was returned per input
      (an array, None for an input the graph does not reach).
    - `nodes`: the graph, root first (topological order). `finished`: False while the sweep runs, and for
      good when it raised.
    """

    output: Any
    gradient: np.ndarray | None
    seed: np.ndarray
    leaves: list = field(default_factory=list)
    grads_before: list = field(default_factory=list)
    grads_after: list = field(default_factory=list)
    nodes: list = field(default_factory=list)
    api: str = "Tensor.backward"
    roots: list = field(default_factory=list)
    gradients: list = field(default_factory=list)
    seeds: list = field(default_factory=list)
    inputs: list | None = None
    create_graph: bool = False
    results: list = field(default_factory=list)
    finished: bool = False


_recorders: contextvars.ContextVar[tuple] = contextvars.ContextVar("backward_recorders", default=())


@contextlib.contextmanager
def record_backward() -> Iterator[list[BackwardCall]]:
    """Collect a `BackwardCall` for every backward made inside the block."""
    calls: list[BackwardCall] = []
    token = _recorders.set(_recorders.get() + (calls,))
    try:
        yield calls
    finally:
        _recorders.reset(token)


def active_recorders() -> tuple:
    return _recorders.get()


# --- recording forward mode (dual numbers) for the explanation layer ------------------------------
@dataclass
class TangentStep:
    """One step of forward-mode AD inside a dual level (`torch.autograd.forward_ad`), reported by
    `engine.forward_ad` as it happens, with copies of its arrays (a later in-place write cannot change it).

    `kind`: "make_dual" (the program made the dual tensor `result` from `primal` and the tangent `tangent`),
    "op" (`op` ran on `inputs` with `attrs` and pushed the tangents of its differentiable inputs, `tangent_inputs`
    — each Tensor, or None where an input has none — to `result`'s tangent `tangent`) or "unpack_dual" (the program read `result`'s tangent:
    the derivative it asked for). `tangent_tensor` is the result's tangent Tensor itself (identity: an in-place
    op moves its result's tangent onto its target)."""

    kind: str
    result: Any
    value: np.ndarray                 # the primal's array, copied
    tangent: np.ndarray | None
    tangent_tensor: Any = None
    primal: Any = None                # make_dual: the Tensor the program passed as primal
    op: Op | None = None
    inputs: tuple = ()                # op: the inputs as passed (Tensors, numbers): identity
    arrays: tuple = ()                # op: their arrays, copied
    attrs: dict = field(default_factory=dict)
    tangent_inputs: tuple = ()       # op: the input tangents themselves (identity: which step made each)


_tangent_recorders: contextvars.ContextVar[tuple] = contextvars.ContextVar("tangent_recorders", default=())


@contextlib.contextmanager
def record_tangents(recorder) -> Iterator:
    """Give `recorder` (anything with `append`) a `TangentStep` for every forward-mode step made inside."""
    token = _tangent_recorders.set(_tangent_recorders.get() + (recorder,))
    try:
        yield recorder
    finally:
        _tangent_recorders.reset(token)


def report_tangent(step_of) -> None:
    """Called by forward mode at each step: `step_of()` makes the `TangentStep` (its copies are made only when
    someone records)."""
    recorders = _tangent_recorders.get()
    if recorders:
        step = step_of()
        for recorder in recorders:
            recorder.append(step)
