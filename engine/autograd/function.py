"""`torch.autograd.function`: `Function` (custom ops with a hand-written backward) and its `FunctionCtx`.

A Function's backward becomes the rule of a one-off entry shaped like the table's (`ops.Op`), so
the sweep, hooks, anomaly detection and create_graph treat it like any other op: its node prints as
PyTorch's `<NameBackward>`.
"""
from __future__ import annotations

import contextlib

import numpy as np

from engine import node_hooks, state, xp
from engine.grad_mode import no_grad
from engine.graph import OUTPUT_NR, SECOND_BACKWARD, Node, node_class
from engine.methods.shape import cat
from engine.ops import Op
from engine.tensor import Tensor

__all__ = ["Function", "FunctionCtx"]


class FunctionCtx:
    """The `ctx` a Function's forward and backward share."""

    def __init__(self) -> None:
        self._saved = ()
        self._saved_forward = ()  # save_for_forward's tensors: what saved_tensors gives inside jvp
        self._in_jvp = False
        self._freed = False
        self.needs_input_grad = ()
        self._non_differentiable = ()
        self._dirty = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors) -> None:
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument 0 is of type "
                                f"{type(t).__name__}")
        self._saved = tensors

    def save_for_forward(self, *tensors) -> None:
        """Tensors for the Function's `jvp` (forward-mode AD), which reads them as `ctx.saved_tensors`."""
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_forward expects all arguments to be tensors; but got "
                                f"{type(t).__name__}")
        self._saved_forward = tensors

    @property
    def saved_tensors(self) -> tuple:
        if self._in_jvp:
            return tuple(self._saved_forward)
        if self._freed:
            raise RuntimeError(SECOND_BACKWARD)
        return tuple(self._saved)

    def mark_non_differentiable(self, *tensors) -> None:
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = bool(value)

    def mark_dirty(self, *tensors) -> None:
        """The inputs forward changed in place: returned, they stay the same tensor, now made by this Function."""
        self._dirty = tensors


class Function:
    """Subclass with `forward(ctx, *args)` and `backward(ctx, *grad_outputs)` as static methods; call
    `YourFunction.apply(*args)`."""

    def __init__(self, *args, **kwargs) -> None:
        pass

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use new-"
                           "style autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """The output's tangent from the inputs' tangents (forward-mode AD, `torch.autograd.forward_ad`)."""
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it with "
                                  "forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        modes = state.current()
        record = modes.grad
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad and record for a in args)
        forward_ad = modes.forward_ad  # the forward_ad module inside a dual level
        output = _forward(cls, ctx, args, kwargs, forward_ad)
        several = isinstance(output, (tuple, list))
        _check_dirty(ctx, args, record)
        # a returned input is a new tensor on the graph (a view in PyTorch); one marked dirty is itself, rebased
        outputs = tuple(Tensor._make(o._data) if isinstance(o, Tensor) and any(a is o for a in args)
                        and not any(o is d for d in ctx._dirty) else o for o in (output if several else (output,)))
        differentiable = [k for k, o in enumerate(outputs) if isinstance(o, Tensor) and o.is_floating_point()
                          and not any(o is t for t in ctx._non_differentiable)]
        if any(ctx.needs_input_grad) and differentiable:
            _record(cls, ctx, args, kwargs, outputs, differentiable if several else None)
        if forward_ad is not None:
            forward_ad.custom_jvp(cls, ctx, args, outputs if several else outputs[0])
        return type(output)(outputs) if several else outputs[0]


def _check_dirty(ctx, args: tuple, record: bool) -> None:
    """PyTorch's refusals for ctx.mark_dirty: a leaf that requires grad cannot be changed in place; a view
    would need its base rebased too (CopySlices), which custom Functions here do not do."""
    for t in ctx._dirty:
        if record and t._requires_grad and t._grad_fn is None and t._view is None:
            raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
        if t._view is not None and t._requires_grad:
            raise NotImplementedError("ctx.mark_dirty on a view is not supported by this engine")
        t._bump_version()  # PyTorch counts the Function's in-place change once more, as it rebases the tensor


class _Layout:
    """Where each differentiable output of a Function with several outputs lies in the one array its node holds
    (flattened, one after another, in their common dtype): the node's gradient is one such array, the sum of
    what reaches each output, and the learner's backward gets it back as one gradient per output."""

    def __init__(self, outputs: tuple, differentiable: list[int]) -> None:
        self.outputs = outputs
        self.dtype = np.result_type(*(outputs[k]._data.dtype for k in differentiable))
        self.places: dict[int, tuple[int, int]] = {}  # output index -> (offset, size)
        offset = 0
        for k in differentiable:
            self.places[k] = (offset, outputs[k]._data.size)
            offset += outputs[k]._data.size
        self.total = offset

    def pack(self, arrays) -> np.ndarray:
        return np.concatenate([np.asarray(arrays[k], dtype=self.dtype).reshape(-1) for k in self.places])

    def split(self, g) -> tuple:
        """The node's gradient (an array, or a Tensor under create_graph) as one per output, None where an output
        is not differentiable: what its hooks see (grad_outputs), as PyTorch's node hands them."""
        parts = []
        for k, output in enumerate(self.outputs):
            offset, size = self.places.get(k, (0, 0))
            parts.append(g[offset:offset + size].reshape(output._data.shape) if k in self.places else None)
        return tuple(parts)

    def join(self, parts: tuple, like):
        """`split`'s inverse, after a pre-hook may have replaced some (a None is zeros), in `like`'s kind and dtype."""
        flat = []
        for k, (_, size) in self.places.items():
            part = parts[k]
            if isinstance(like, Tensor):
                flat.append(Tensor._make(np.zeros(size, dtype=like._data.dtype)) if part is None else part.reshape(-1))
            else:
                flat.append(np.zeros(size, dtype=like.dtype) if part is None else np.asarray(part, like.dtype).reshape(-1))
        return cat(flat, dim=0) if isinstance(like, Tensor) else np.concatenate(flat)

    def unpack(self, g: Tensor) -> tuple:
        """One gradient per output from the packed gradient `g` (a Tensor; recording when create_graph is on):
        zeros for a tensor output that is not differentiable, None for anything else, as PyTorch passes them."""
        grads = []
        for k, o in enumerate(self.outputs):
            if k in self.places:
                offset, size = self.places[k]
                gk = g[offset:offset + size].reshape(o._data.shape)
                grads.append(gk if gk._data.dtype == o._data.dtype else gk._convert(o._data.dtype))
            else:
                grads.append(Tensor._make(np.zeros_like(o._data)) if isinstance(o, Tensor) else None)
        return tuple(grads)

    def select_rule(self, k: int):
        """The rule of output k's own node: its gradient put in its place of the packed gradient (zeros around
        it), with any leading batch axes of a Jacobian's sweep kept."""
        offset, size = self.places[k]

        def rule(g, out, packed, output_nr):
            batch = np.shape(g)[:np.ndim(g) - np.ndim(out)]
            if isinstance(g, Tensor):
                zeros = [Tensor._make(np.zeros(batch + (n,), dtype=g._data.dtype))
                         for n in (offset, self.total - offset - size)]
                return cat([zeros[0], g.reshape(*batch, size), zeros[1]], dim=-1)
            result = np.zeros(batch + (self.total,), dtype=np.result_type(g, packed))
            result[..., offset:offset + size] = np.reshape(g, batch + (size,))
            return result
        return rule


def _record(cls, ctx, args: tuple, kwargs: dict, outputs: tuple, differentiable: list[int] | None) -> None:
    """Put the Function on the graph: one node whose rules run the learner's backward once per sweep. With several
    outputs (`differentiable` given) that node holds them packed (`_Layout`) and each output's own node, named
    as PyTorch names them (`MyFnBackward`), hands its gradient to it."""
    parents = tuple(a._grad_fn or a._grad_edge() if need else None for a, need in zip(args, ctx.needs_input_grad))
    arrays = tuple(a._data if isinstance(a, Tensor) else a for a in args)
    name = f"{cls.__name__}Backward"
    layout = None if differentiable is None else _Layout(outputs, differentiable)
    rules = tuple(_rule(cls, ctx, i, len(args), name, layout) for i in range(len(args)))
    op = Op(name, tuple(f"input{i}" for i in range(len(args))), _array_forward(cls, kwargs, layout), rules,
            tuple(f"{cls.__name__}.backward" for _ in args), saves=("ctx.saved_tensors",) if ctx._saved else (),
            custom=True)
    if layout is None:
        node = node_class(Node, op)(op, arrays, {}, outputs[0]._data, parents)
        outputs[0]._grad_fn, outputs[0]._requires_grad = node, True
    else:
        node = node_class(Node, op)(op, arrays, {}, layout.pack([o._data if isinstance(o, Tensor) else None for o in outputs]),
                    parents)
        for k, (offset, size) in layout.places.items():
            shape = outputs[k]._data.shape
            select = Op(name, ("result",),
                        lambda packed, output_nr, a=offset, b=offset + size, s=shape: packed[a:b].reshape(s),
                        (layout.select_rule(k),), (f"output {k} of {cls.__name__}.forward",), custom=True)
            outputs[k]._grad_fn = node_class(Node, select)(select, (node.out,), {OUTPUT_NR: k}, outputs[k]._data,
                                                           (node,))
            outputs[k]._requires_grad = True
        node_hooks.layouts[node] = layout
    ctx._node = node


def _forward(cls, ctx, args: tuple, kwargs: dict, forward_ad=None):
    """The user's forward, unrecorded, in either of PyTorch's styles (ctx first, or setup_context). Inside a
    dual level its tangents are not propagated either: they come from the Function's jvp."""
    with no_grad() if forward_ad is None else forward_ad.suspended(record=False):
        if cls.setup_context is not Function.setup_context:
            output = cls.forward(*args, **kwargs)
            cls.setup_context(ctx, args, output)
            return output
        return cls.forward(ctx, *args, **kwargs)


def _array_forward(cls, kwargs: dict, layout: _Layout | None):
    """The node's forward on arrays, for the explanation layer's replays (finite differences at other
    values): the user's forward with a fresh ctx (its outputs packed as the node holds them). Symbols cannot run
    through the learner's Python, so a symbolic replay stops with a TypeError, which the explanation reports as
    "no symbolic form"."""
    def forward(*arrays):
        if any(xp.symbolic(a) for a in arrays):
            raise TypeError(f"{cls.__name__} is a custom autograd.Function: its backward is code, not a formula")
        args = tuple(Tensor._make(a) if isinstance(a, np.ndarray) else a for a in arrays)
        output = _forward(cls, FunctionCtx(), args, kwargs)
        if layout is not None:
            return layout.pack([o._data if isinstance(o, Tensor) else o for o in output])
        return output._data if isinstance(output, Tensor) else np.asarray(output)
    return forward


def _rule(cls, ctx, index: int, n: int, name: str, layout: _Layout | None):
    """The rule for input `index`: runs the user's backward once per incoming gradient (one per output, unpacked
    by `layout`, when there are several), then hands out the gradient of each input. A batch of cotangents
    (leading axes: the Jacobian's one sweep) goes through the user's backward one row at a time, since the
    learner's code expects a gradient of `out`'s shape."""
    def rule(g, out, *arrays):
        extra = np.ndim(g) - np.ndim(out)
        if extra > 0 and not isinstance(g, Tensor):
            rows = [rule(row, out, *arrays) for row in g.reshape((-1,) + np.shape(out))]
            if any(r is None for r in rows):
                return None
            rows = [np.broadcast_to(r, np.shape(arrays[index])) for r in rows]
            return np.stack(rows).reshape(g.shape[:extra] + np.shape(arrays[index]))
        cache = getattr(ctx, "_cache", None)
        if cache is None or cache[0] is not g:
            tensor_mode = isinstance(g, Tensor)
            grad_output = g if tensor_mode else Tensor._make(g)
            with contextlib.nullcontext() if tensor_mode else no_grad():
                grads = cls.backward(ctx, *((grad_output,) if layout is None else layout.unpack(grad_output)))
            grads = grads if isinstance(grads, tuple) else (grads,)
            if len(grads) != n:
                if len(grads) > n and all(g is None for g in grads[n:]):
                    grads = grads[:n]
                else:
                    raise RuntimeError(f"function {name} returned an incorrect number of gradients (expected {n}, "
                                       f"got {len(grads)})")
            for position, (gi, array) in enumerate(zip(grads, arrays), 1):  # PyTorch checks every one, used or not
                if gi is not None and not isinstance(gi, Tensor):
                    raise RuntimeError(f"expected Variable or None (got {type(gi).__name__})")
                if gi is not None and not isinstance(array, (np.ndarray, Tensor)):  # the input was not a tensor
                    raise RuntimeError(f"function {name} returned a gradient different than None at position "
                                       f"{position}, but the corresponding forward input was not a Variable")
            ctx._cache = cache = (g, grads, tensor_mode)
            if not ctx._node_retained():
                ctx._freed = True
        gi = cache[1][index]
        if gi is None:
            return None
        if gi._data.shape != np.shape(arrays[index]):  # PyTorch sums a gradient the input expands to, refuses others
            try:
                expandable = np.broadcast_shapes(gi._data.shape, np.shape(arrays[index])) == gi._data.shape
            except ValueError:
                expandable = False
            if not expandable:
                raise RuntimeError(f"Function {name} returned an invalid gradient at index {index} - got "
                                   f"[{', '.join(map(str, gi._data.shape))}] but expected shape compatible with "
                                   f"[{', '.join(map(str, np.shape(arrays[index])))}]")
        return gi if cache[2] else gi._data
    return rule


def _node_retained(self) -> bool:
    return True  # the sweep marks the node freed; saved_tensors then refuse (see Node.freed)


FunctionCtx._node_retained = _node_retained
