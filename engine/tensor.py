"""`Tensor`: a numpy array plus the autograd bookkeeping PyTorch learners see.

Every differentiable method is one line that names its entry in
`engine.derivatives.OPS`; `_apply` runs that entry's forward rule and, when a
gradient is needed, records a `Node` with what the backward rule needs.
"""
from __future__ import annotations

import functools
import math
import re
import warnings
import weakref
from collections import namedtuple

import numpy as np

from engine import dtypes, state
from engine.derivatives import OPS, broadcast_shapes, saved_tensors, variadic
from engine.graph import SECOND_BACKWARD, AccumulateGrad, Node, accumulate, as_grad, guard_shape, record_trace
from engine.printing import format_tensor

_FLOAT32 = np.dtype(np.float32)
_FLOAT64 = np.dtype(np.float64)
_modes = state.current  # the engine's modes (grad, inference, forward AD, anomaly, size guard): `engine.state`


def set_size_guard(guard) -> None:
    """Install `guard(shape, work=0, itemsize=None)` to vet every tensor shape before it is allocated, with the
    multiply-adds of every matrix product (None removes it); it is also called at each node of a backward sweep
    and each module call (`guard_work`), where it may stop the work."""
    state.update(size_guard=guard)


def set_forward_ad(module) -> None:
    """Open (the forward_ad module) or close (None) forward-mode AD: the one check ordinary ops pay."""
    state.update(forward_ad=module)


def guard_work() -> None:
    """One unit of work the engine does for its caller without allocating (a module call): the size guard
    sees an empty shape, so the runner checks its clock also where no tensor is made."""
    guard_shape(())


class no_grad:  # noqa: N801 - PyTorch's spelling
    """`with torch.no_grad():` — operations inside record no graph; `@torch.no_grad()` (or, as in PyTorch,
    `@torch.no_grad` without parentheses) on a function does the same for every call of it."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)

    def __enter__(self):
        self._previous = state.update(grad=False)

    def __exit__(self, *exc):
        state.restore(self._previous, "grad")

    def __call__(self, fn):
        clone = self._clone

        @functools.wraps(fn, assigned=("__name__", "__qualname__", "__doc__"))  # __module__ stays the engine's
        def wrapper(*args, **kwargs):
            with clone():  # a fresh manager per call: recursive and nested calls restore their own mode
                return fn(*args, **kwargs)
        return wrapper

    def _clone(self):
        return type(self)()


class set_grad_enabled(no_grad):  # noqa: N801 - PyTorch's spelling
    """`torch.set_grad_enabled(mode)`: switches recording now, and back at the end of a `with` block."""

    def __new__(cls, mode: bool):
        return object.__new__(cls)

    def __init__(self, mode: bool) -> None:
        self._previous = state.update(grad=bool(mode))
        self._mode = bool(mode)

    def __enter__(self):
        pass

    def __call__(self, fn):
        state.restore(self._previous, "grad")  # as a decorator it switches nothing now, only during each call
        return super().__call__(fn)

    def _clone(self):
        return set_grad_enabled(self._mode)


class enable_grad(no_grad):  # noqa: N801
    """`with torch.enable_grad():` — record again inside a `no_grad` block."""

    def __enter__(self):
        self._previous = state.update(grad=True)


def is_grad_enabled() -> bool:
    return _modes().grad


class inference_mode(no_grad):  # noqa: N801 - PyTorch's spelling
    """`with torch.inference_mode():` — like no_grad, and the tensors made inside are inference tensors,
    which a graph may not save later (`@torch.inference_mode()` on a function too; `inference_mode(False)`
    switches it off inside)."""

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):
            return cls()(mode)
        return object.__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self._mode = bool(mode)

    def __enter__(self):
        self._previous = state.update(grad=not self._mode, inference=self._mode)

    def __exit__(self, *exc):
        state.restore(self._previous, "grad", "inference")

    def _clone(self):
        return inference_mode(self._mode)


def is_inference_mode_enabled() -> bool:
    return _modes().inference


INFERENCE_SAVED = ("Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
                   "mode in computation tracked by autograd. To work around this, you can make a clone to get a "
                   "normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
                   "`torch.inference_mode()`.")
INFERENCE_INPLACE = ("Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to "
                     "get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for "
                     "more details.")


def _result_dtype(arrays, out_dtype):
    """For an op without a dtype rule in the table: float64 only from a float64 tensor."""
    if out_dtype == _FLOAT64 and not any(type(a) is np.ndarray and a.dtype == _FLOAT64 for a in arrays):
        return _FLOAT32
    return out_dtype


def _apply(name: str, inputs: tuple, /, **attrs) -> "Tensor":
    """Run op `name` forward on `inputs` (Tensors or Python numbers) and record its node if needed."""
    return _run(OPS[name], inputs, attrs)


def _run(op, inputs: tuple, attrs: dict, modes=None) -> "Tensor":
    """Dispatch one op record: check, shape and size guard, forward, dtype, view link, tangent, node (`modes`:
    the caller's read of them). Every op of every method, function and operator runs here, once."""
    arrays = []  # (a loop, not a comprehension: this runs for every op, and a comprehension is a call)
    for t in inputs:
        arrays.append(t._data if type(t) in _TENSOR_TYPES else t)
    if op.check is not None:
        op.check(arrays, attrs)
    if modes is None:
        modes = _modes()
    if modes.size_guard is not None and op.shape is not None:
        modes.size_guard(*op.shape(arrays, attrs))
    out = op.forward(*arrays, **attrs)
    if type(out) is not np.ndarray:
        out = np.asarray(out)
    # the result's dtype is PyTorch's (type promotion, `engine.dtypes.result_type`), whatever numpy made
    rule = op.result_dtype
    if rule is not None:
        dtype = rule(arrays, attrs)
        if out.dtype is not dtype and out.dtype != dtype:
            out = out.astype(dtype)
    elif out.dtype == _FLOAT64 and "dtype" not in attrs:  # an explicit cast (`dtype` attr) keeps its dtype
        out = out.astype(_result_dtype(arrays, out.dtype), copy=False)
    result = Tensor._make(out)
    if op.view:
        _link_view(result, inputs[0], op, attrs)
    if modes.forward_ad is not None and not modes.inference:  # (inference tensors carry no tangent)
        modes.forward_ad.propagate(op, inputs, attrs, result)
    if not modes.grad:
        if modes.inference:
            result._inference = True
        return result
    parents, wanted, bit = [], 0, 1  # wanted: a bit per input that needs a gradient
    for t in inputs[: len(op.vjp)]:
        if type(t) in _TENSOR_TYPES and t._requires_grad:
            parents.append(t._grad_fn or t._grad_edge())
            wanted |= bit
        else:
            parents.append(None)
        bit <<= 1
    if wanted:
        result._requires_grad = True
        node = result._grad_fn = OpNode(op, tuple(arrays), attrs, out, tuple(parents))
        if modes.anomaly:
            record_trace(node)
        if op.saves:
            _save_versions(node, op, inputs, wanted, result)
    return result


def _link_view(result: "Tensor", src: "Tensor", op, attrs: dict) -> None:
    """A view shares its base's storage and version counter, and remembers the view ops that take it from
    the base, so that an in-place change of it can rebase the base's graph (`Tensor._rebase`)."""
    view = getattr(src, "_view", None)
    base, ops = (src, ()) if view is None else view
    result._view = (base, ops + ((op, attrs),))
    result._vc = base._shared_version()
    views = getattr(base, "_views", None)
    if views is None:
        base._views = [weakref.ref(result)]  # (weak references, never compared: Tensor == is elementwise)
    else:
        views.append(weakref.ref(result))


def _view_index(base: "Tensor", ops: tuple) -> np.ndarray:
    """Where a view sits in its base: the base's flat positions, laid out as the view (its view ops replayed)."""
    index = np.arange(base._data.size).reshape(base._data.shape)
    for op, attrs in ops:
        index = op.forward(index, **attrs)
    return np.array(index)


def _refresh_views(base: "Tensor", changed: "Tensor | None" = None) -> None:
    """After the base's graph changed in place, its live views read from its new history (each an
    AsStridedBackward0 of the base, as PyTorch regenerates them); `changed` has already been done."""
    views = getattr(base, "_views", None)
    if not views:
        return
    alive = []
    for ref in views:
        view = ref()
        if view is None:
            continue
        alive.append(ref)
        if view is not changed:
            strided = _run(OPS["as_strided"], (base,), {"index": _view_index(base, view._view[1])})
            view._grad_fn, view._requires_grad = strided._grad_fn, True
    base._views = alive


def _save_versions(node, op, inputs, wanted: int, result) -> None:
    """Remember the versions of the tensors this node's rules will read (for the in-place check).

    A saved input is kept with its version; the saved result only by its version cell, since the
    result holds this node (`grad_fn`) and a reference back would make every such graph a cycle that
    only the garbage collector can free (PyTorch's SavedVariable drops the grad_fn of an output too)."""
    positions, saves_result = saved_tensors(op, wanted)
    versions = []
    for i in positions:
        if type(inputs[i]) in _TENSOR_TYPES:
            if getattr(inputs[i], "_inference", False):
                raise RuntimeError(INFERENCE_SAVED)
            versions.append((inputs[i], inputs[i]._version, False))
    if saves_result:
        cell = result._shared_version()
        versions.append((cell, cell[0], True))
    if versions:
        node.versions = versions


class OpNode(Node):
    """The node an op's dispatch records (`grad_fn`): a `Node` that also shows what it saved, by PyTorch's
    names (`y.grad_fn._saved_self`, `_saved_result`, `_saved_exponent`)."""

    __slots__ = ()

    def __getattr__(self, name: str):
        if name.startswith("_saved_") and name[7:] in saved_names(self.op):  # (only then: slots are set)
            return saved_value(self, name[7:])
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __dir__(self) -> list:
        return sorted({*super().__dir__(), *(f"_saved_{name}" for name in saved_names(self.op))})


def saved_names(op) -> tuple[str, ...]:
    """The `_saved_*` names a node of `op` offers: its saved inputs and result, and its saved arguments.
    Tensors PyTorch saves beside the inputs (an index, a mask) the engine keeps in its own layout (indices with
    kept dims, a key instead of a list), so it does not offer them: never a plausible wrong value."""
    return tuple(n for n in op.saves if n in op.inputs or n == "result") + op.saved_args


def saved_value(node, name: str):
    """`grad_fn._saved_<name>` as PyTorch gives it: a saved input is that very Tensor (a number operand a 0-dim
    tensor), the saved result a new Tensor on the result's data whose grad_fn is this node, a saved argument
    its value; None for an input not saved because no gradient needed it. Saved tensors are gone once a
    backward freed the graph (PyTorch's error); arguments stay."""
    op = node.op
    if name in op.saved_args:
        return node.attrs[name]
    if node.freed:
        raise RuntimeError(SECOND_BACKWARD)
    if name == "result":  # PyTorch saves an output whichever input needs a gradient
        result = Tensor._make(node.out)
        result._grad_fn, result._requires_grad = node, True
        return result
    wanted = sum(1 << i for i, parent in enumerate(node.parents) if parent is not None)
    i = op.inputs.index(name)
    if i not in saved_tensors(op, wanted)[0]:
        return None
    for saved, _, is_output in node.versions:
        if not is_output and saved._data is node.arrays[i]:
            return saved
    return Tensor._make(np.asarray(node.arrays[i]))


def _as_operand(other):
    """A Tensor or a Python number, as PyTorch's binary operators accept."""
    if type(other) is Tensor or isinstance(other, (int, float, bool)):
        return other
    if isinstance(other, Tensor):
        return other
    if isinstance(other, np.ndarray):
        dtypes.from_numpy(other.dtype)  # PyTorch's TypeError for object/str/void arrays
        return Tensor._make(other)
    raise TypeError(f"unsupported operand type: '{type(other).__name__}'")


_NO_ATTRS: dict = {}


def _binary(key: str, a: "Tensor", b) -> "Tensor":
    """A binary op of a tensor and a tensor or a Python number."""
    if type(b) is not Tensor and type(b) is not float and type(b) is not int:
        b = _as_operand(b)
    return _run(OPS[key], (a, b), _NO_ATTRS)


def _normalize_dim(dim: int, ndim: int) -> int:
    """A dim as a negative index (so rules stay right with leading batch axes); PyTorch's error if out of range."""
    low, high = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"dim must be an int, not {type(dim).__name__}")
    if dim < low or dim > high:
        raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})")
    return dim - ndim if dim >= 0 and ndim else (dim if ndim else -1)


def _dims(dim, ndim) -> tuple[int, ...]:
    """Reduction dims as negative indices; () for a 0-dim tensor (dim 0 or -1 reduce over nothing)."""
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    dims = tuple(_normalize_dim(d, ndim) for d in dims)
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"dim {next(d % ndim for d in dims if dims.count(d) > 1)} appears multiple times in the "
                           "list of dims")
    return dims if ndim else ()


def _tensor_arg(value, function: str, name: str, position: int = 1) -> "Tensor":
    """An argument PyTorch only accepts as a Tensor, with its TypeError otherwise."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")
    return value


def _shape_arg(shape) -> tuple:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, dtypes.Size)):
        shape = shape[0]
    return tuple(int(s) for s in shape)


def _view_shape(shape, numel) -> tuple[int, ...]:
    """Resolve a single -1 and check the element count, with PyTorch's message."""
    shape = list(shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = int(np.prod([s for s in shape if s != -1])) if shape else 1
    if -1 in shape:
        if known == 0 and numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape [{', '.join(map(str, shape))}] because "
                               "the unspecified dimension size -1 can be any value and is ambiguous")
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
        shape[shape.index(-1)] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
    return tuple(shape)


MaxResult = namedtuple("max", ["values", "indices"])
MinResult = namedtuple("min", ["values", "indices"])
for _result in (MaxResult, MinResult):
    _result.__repr__ = lambda self: (f"torch.return_types.{type(self).__name__}(\nvalues={self.values!r},\n"
                                      f"indices={self.indices!r})")

# the C++ type names some of PyTorch's messages use ("expected m1 and m2 to have the same dtype, but got: float != double")
_C_TYPE_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                 "uint8": "unsigned char", "bool": "bool", "float16": "c10::Half", "float32": "float",
                 "float64": "double"}
_SCALAR_TYPE_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                      "bool": "Bool", "float16": "Half", "float32": "Float", "float64": "Double"}
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
LEAF_VIEW_INPLACE = "a view of a leaf Variable that requires grad is being used in an in-place operation."
OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
           "Please clone() the tensor before performing the operation.")


def _check_overlap(array: np.ndarray) -> None:
    """PyTorch's refusal to write elementwise into an expanded tensor (a stride-0 dim of size > 1)."""
    if 0 in array.strides and any(st == 0 and n > 1 for st, n in zip(array.strides, array.shape)):
        raise RuntimeError(OVERLAP)
_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2}


_CPU = dtypes.device("cpu")


class RemovableHandle:
    """What `register_hook` (and a module's `register_*_hook`) returns: `handle.remove()` unregisters the hook,
    from its dict and from the sets that mark its options (`marks`: a module hook's `with_kwargs`...)."""

    _next_id = 0

    def __init__(self, hooks: dict, *marks: set) -> None:
        self._hooks, self._marks = hooks, marks
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self) -> None:
        self._hooks.pop(self.id, None)
        for mark in self._marks:
            mark.discard(self.id)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


class Tensor:
    """A multi-dimensional array that can record the operations applied to it."""

    # _tangent is set only on dual tensors (torch.autograd.forward_ad), so making a tensor costs nothing more
    __slots__ = ("_data", "_requires_grad", "_grad", "_grad_fn", "_accumulator", "_vc", "_view", "_views", "_inference",
                 "_tangent", "__weakref__")
    __array_priority__ = 1000  # numpy scalars on the left defer to Tensor's reflected operators

    def __init__(self, *args) -> None:
        """The legacy constructor `torch.Tensor(data)` / `torch.Tensor(2, 3)`: always float32."""
        if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
            data = _to_array(args[0], dtypes.float32.numpy)
        else:
            shape = _shape_arg(args)
            guard_shape(shape)
            data = np.zeros(shape, dtype=np.float32)
        self._data, self._requires_grad, self._grad, self._grad_fn, self._accumulator = data, False, None, None, None
        self._vc = None

    @classmethod
    def _make(cls, data: np.ndarray, requires_grad: bool = False) -> "Tensor":
        t = object.__new__(cls)
        t._data = data
        t._requires_grad = requires_grad
        t._grad = t._grad_fn = t._accumulator = t._vc = None
        return t

    # --- autograd attributes ------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self._set_requires_grad(value, "only Tensors of floating point and complex dtype can require gradients")

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        self._set_requires_grad(requires_grad, "only Tensors of floating point dtype can require gradients")
        return self

    def _set_requires_grad(self, value: bool, int_message: str) -> None:
        if self._grad_fn is not None:
            if not value:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
            return
        if value and self._data.dtype.kind != "f":
            raise RuntimeError(int_message)
        self._requires_grad = bool(value)

    @property
    def grad_fn(self):
        """The node that made this tensor (None for a leaf); read-only, as in PyTorch."""
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, value) -> None:
        raise AttributeError("attribute 'grad_fn' of 'torch._C.TensorBase' objects is not writable")

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    @property
    def grad(self):
        if self._grad_fn is not None and not self.retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
                "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
                "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf "
                "Tensor by mistake, make sure you access the leaf Tensor instead. See "
                "github.com/pytorch/pytorch/pull/30531 for more information.", UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                            f"{type(value).__name__}")
        if value is not None and value._data.shape != self._data.shape:
            raise RuntimeError(f"attempting to assign a gradient of size '{list(value._data.shape)}' to a tensor of "
                               f"size '{list(self._data.shape)}'. Please ensure that the gradient and the tensor are "
                               "the same size".replace(", ", ","))
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None  # `del x.grad`, as in PyTorch

    @property
    def retains_grad(self) -> bool:
        return self._grad_fn is not None and self._grad_fn.retained is self

    def retain_grad(self) -> None:
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is not None:
            self._grad_fn.retained = self

    def _grad_edge(self):
        """Where a gradient for this tensor goes: its grad_fn, or its leaf's AccumulateGrad."""
        if self._grad_fn is not None:
            return self._grad_fn
        if self._accumulator is None:
            self._accumulator = AccumulateGrad(self)
        return self._accumulator

    def _accumulate(self, g) -> None:
        """Add a cotangent into .grad (in place, as PyTorch does, so references see the sum). A Tensor
        cotangent (create_graph=True) keeps its graph: .grad becomes it, or the old .grad plus it."""
        if isinstance(g, Tensor):
            if g._data.shape != self._data.shape:
                g = g.expand(*self._data.shape)
            if self._grad is not None:
                self._grad = self._grad + g
            elif g._requires_grad:  # PyTorch copies the incoming gradient into a fresh .grad (CopyBackwards)
                previous = state.update(grad=True)
                try:
                    self._grad = _apply("copy", (Tensor._make(np.zeros_like(self._data)), g))
                finally:
                    state.restore(previous, "grad")
            else:
                self._grad = Tensor._make(as_grad(g._data, self._data))
            return
        if self._grad is None:
            self._grad = Tensor._make(as_grad(g, self._data))
        else:
            accumulate(self._grad._data, g)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
        """Compute the gradient of this tensor w.r.t. the graph leaves (or `inputs`), adding into their `.grad`."""
        if inputs is not None:
            inputs = _input_list(inputs)
        _backward.run_backward([self], [gradient], inputs=inputs, retain_graph=retain_graph,
                               create_graph=create_graph, api="Tensor.backward")

    def register_hook(self, hook) -> RemovableHandle:
        """Run `hook(grad)` on this tensor's gradient each time it is computed; a hook that returns a Tensor
        replaces the gradient. Returns a handle whose `remove()` unregisters it."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        edge = self._grad_edge()
        if edge.hooks is None:
            edge.hooks = {}
        handle = RemovableHandle(edge.hooks)
        edge.hooks[handle.id] = hook
        return handle

    def register_post_accumulate_grad_hook(self, hook) -> RemovableHandle:
        """Run `hook(tensor)` on a leaf after backward has accumulated into its `.grad`."""
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        edge = self._grad_edge()
        if edge.post_hooks is None:
            edge.post_hooks = {}
        handle = RemovableHandle(edge.post_hooks)
        edge.post_hooks[handle.id] = hook
        return handle

    def is_inference(self) -> bool:
        """Whether this tensor was made in inference mode (`torch.inference_mode`)."""
        return getattr(self, "_inference", False)

    def detach(self) -> "Tensor":
        """A tensor without a graph on the same storage, with the same version counter (an in-place change of
        either is seen by the graph that saved the other)."""
        belief = _modes().belief
        if belief is not None and belief.keeps_graph:  # a learner who believes gradients flow through detach()
            return self.view_as(self)
        t = Tensor._make(self._data)
        t._vc = self._shared_version()
        return t

    def detach_(self) -> "Tensor":
        forward_ad = _modes().forward_ad
        if forward_ad is not None:
            forward_ad.inplace(self, None)
        self._grad_fn, self._requires_grad = None, False
        return self

    @property
    def data(self) -> "Tensor":
        return Tensor._make(self._data)

    @data.setter
    def data(self, value: "Tensor") -> None:
        self._data = value._data

    # --- inspection ---------------------------------------------------------------------------
    @property
    def shape(self) -> dtypes.Size:
        return dtypes.Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return dtypes.Size(self._data.shape)
        return self._data.shape[_normalize_dim(dim, self._data.ndim)]

    def dim(self) -> int:
        return self._data.ndim

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel

    @property
    def dtype(self) -> dtypes.dtype:
        return dtypes.from_numpy(self._data.dtype)

    @property
    def device(self) -> dtypes.device:
        return _CPU

    def cpu(self) -> "Tensor":
        return self

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def numpy(self) -> np.ndarray:
        if self._requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._data

    def __repr__(self) -> str:
        return format_tensor(self._data, requires_grad=self._requires_grad and self._grad_fn is None,
                             grad_fn=None if self._grad_fn is None else self._grad_fn.op.grad_fn,
                             tangent=None if _modes().forward_ad is None else _modes().forward_ad.format_suffix(self))

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return format(self._data.item(), spec)
        return format(repr(self), spec)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        n = self._data.shape[0]
        return iter([_apply("unbind", (self,), key=(i,) + (slice(None),) * (self._data.ndim - 1)) for i in range(n)])

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()))

    def _scalar(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.reshape(()).item()

    def __float__(self) -> float:
        return float(self._scalar())

    def __int__(self) -> int:
        return int(self._scalar())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    __hash__ = object.__hash__

    # --- arithmetic ---------------------------------------------------------------------------
    def __add__(self, other):
        return _binary("add", self, other)

    def __radd__(self, other):
        return _binary("add", self, other)

    def __sub__(self, other):
        return _binary("sub", self, other)

    def __rsub__(self, other):
        if isinstance(other, Tensor):
            return _binary("sub", other, self)
        return _apply("rsub", (self, _as_operand(other)))

    def __mul__(self, other):
        return _binary("mul", self, other)

    def __rmul__(self, other):
        return _binary("mul", self, other)

    def __truediv__(self, other):
        return _binary("div", self, other)

    def __rtruediv__(self, other):
        if isinstance(other, Tensor):
            return _binary("div", other, self)
        return _apply("reciprocal", (self,)) * other

    def __floordiv__(self, other):
        return _binary("floor_divide", self, other)

    def __rfloordiv__(self, other):
        return _apply("rfloor_divide", (self, _as_operand(other)))

    def __mod__(self, other):
        if isinstance(other, Tensor):
            return _binary("remainder_tensor", self, other)
        return _binary("remainder", self, other)

    def __rmod__(self, other):
        return _apply("rremainder", (self, _as_operand(other)))

    def floor_divide(self, other):
        return self // other

    def remainder(self, other):
        return self % other

    def __neg__(self):
        return _apply("neg", (self,))

    def __pos__(self):
        return self

    def __pow__(self, exponent):
        return self.pow(exponent)

    def __rpow__(self, base):
        if isinstance(base, Tensor):
            return base.pow(self)
        return _apply("rpow", (self, _as_operand(base)))

    def __matmul__(self, other):
        return matmul(self, other)

    def __rmatmul__(self, other):
        if not isinstance(other, Tensor):
            raise TypeError(f"unsupported operand type(s) for @: '{type(other).__module__}.{type(other).__name__}' "
                            "and 'Tensor'".replace("builtins.", ""))
        return matmul(other, self)

    def pow(self, exponent):
        if isinstance(exponent, Tensor):
            if self._data.dtype.kind in "iu" and exponent._data.dtype.kind in "iu" and (exponent._data < 0).any():
                raise RuntimeError("Integers to negative integer powers are not allowed.")
            return _binary("pow_tensor", self, exponent)
        if self._data.dtype.kind in "iu" and isinstance(exponent, int) and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return _apply("pow", (self,), exponent=_as_operand(exponent))

    def add(self, other, alpha=1):
        return self + (other * alpha if alpha != 1 else other)

    def sub(self, other, alpha=1):
        return self - (other * alpha if alpha != 1 else other)

    def mul(self, other):
        return self * other

    def div(self, other):
        return self / other

    def square(self):
        return self.pow(2)

    # comparisons and logical operators give tensors that never require grad (their records have no rules)
    def eq(self, other):
        return _binary("eq", self, other)

    def ne(self, other):
        return _binary("ne", self, other)

    def lt(self, other):
        return _binary("lt", self, other)

    def le(self, other):
        return _binary("le", self, other)

    def gt(self, other):
        return _binary("gt", self, other)

    def ge(self, other):
        return _binary("ge", self, other)

    __eq__, __ne__, __lt__, __le__, __gt__, __ge__ = eq, ne, lt, le, gt, ge

    def all(self):
        return _apply("all", (self,))

    def any(self):
        return _apply("any", (self,))

    def __and__(self, other):
        return _binary("bitwise_and", self, other)

    def __or__(self, other):
        return _binary("bitwise_or", self, other)

    def __xor__(self, other):
        return _binary("bitwise_xor", self, other)

    __rand__, __ror__, __rxor__ = __and__, __or__, __xor__

    def __invert__(self):
        if self._data.dtype.kind == "f":
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
        return Tensor._make(np.invert(self._data))

    def logical_not(self):
        return _apply("logical_not", (self,))

    def allclose(self, other, rtol=1e-05, atol=1e-08) -> bool:
        return bool(np.allclose(self._data, _as_operand(other)._data, rtol=rtol, atol=atol))

    def equal(self, other) -> bool:
        return self._data.shape == other._data.shape and bool(np.array_equal(self._data, other._data))

    # --- elementwise functions (exp, sin, relu…: generated from their records by `engine.registry`) ---------
    def _floating(self) -> "Tensor":
        """Integer and bool inputs of float-valued ops (exp, sqrt…) are computed as float32, as PyTorch."""
        return self if self._data.dtype.kind == "f" else Tensor._make(self._data.astype(np.float32))

    def clamp(self, min=None, max=None):  # noqa: A002 - PyTorch's argument names
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        return _apply("clamp", (self,), low=min, high=max)

    clip = clamp

    def clamp_min(self, min):  # noqa: A002
        return _apply("clamp_min", (self,), low=min)

    def clamp_max(self, max):  # noqa: A002
        return _apply("clamp_max", (self,), high=max)

    def maximum(self, other):
        return _binary("maximum", self, _tensor_arg(other, "maximum", "other"))

    def atan2(self, other):
        """`y.atan2(x)`: the angle of the point (x, y), in (-π, π]; `other` must be a tensor, as in PyTorch."""
        return _binary("atan2", self, _tensor_arg(other, "atan2", "other"))

    def minimum(self, other):
        return _binary("minimum", self, _tensor_arg(other, "minimum", "other"))

    def masked_fill(self, mask, value):
        mask = _tensor_arg(mask, "masked_fill", "mask")
        if mask._data.dtype != np.bool_:
            raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                               f"{_C_TYPE_NAMES[mask._data.dtype.name]}")
        if isinstance(value, Tensor):
            if value._data.ndim:
                raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                                   f"{value._data.ndim} dimension(s).")
            return _apply("masked_fill_tensor", (self, value), mask=mask._data)
        return _apply("masked_fill", (self,), mask=mask._data, value=value)

    def gather(self, dim, index):
        """`x.gather(dim, index)`: out[i][j] = x[i][index[i][j]] (for dim=1)."""
        d, index = self._index_arg("gather", dim, index, "input")
        return _apply("gather", (self,), dim=d, index=index)

    def scatter(self, dim, index, src=None, *, value=None, reduce=None):
        """`x.scatter(dim, index, src)` (or a number `value`): a copy of x with src written along dim at index."""
        if reduce is not None:
            raise NotImplementedError("scatter(reduce=...) is not supported by this engine")
        d, index = self._index_arg("scatter", dim, index, "self")
        src = value if src is None else src
        if isinstance(src, Tensor):
            return _apply("scatter", (self, src), dim=d, index=index)
        return _apply("scatter_value", (self,), dim=d, index=index, value=_fill_value(src, "scatter"))

    def scatter_add(self, dim, index, src):
        """`x.scatter_add(dim, index, src)`: a copy of x with src added along dim at index."""
        d, index = self._index_arg("scatter_add", dim, index, "self")
        return _apply("scatter_add", (self, _tensor_arg(src, "scatter_add", "src", 3)), dim=d, index=index)

    def index_add(self, dim, index, source, *, alpha=1):
        """`x.index_add(dim, index, source, alpha=1)`: a copy of x with alpha·source added along dim at the
        positions in index; a position listed twice receives both rows (how embedding gradients add up)."""
        index = _tensor_arg(index, "index_add", "index", 2)
        source = _tensor_arg(source, "index_add", "source", 3)
        kind, shape = index._data.dtype, self._data.shape
        if kind.kind not in "iu":
            raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: {_SCALAR_TYPE_NAMES[kind.name]}")
        if index._data.ndim > 1:
            raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {index._data.ndim} with type: "
                             f"{_SCALAR_TYPE_NAMES[kind.name]} and size: {list(index._data.shape)}")
        d = _normalize_dim(dim, self._data.ndim)
        if source._data.dtype != self._data.dtype:
            raise RuntimeError(f"index_add_(): self ({_SCALAR_TYPE_NAMES[self._data.dtype.name]}) and source "
                               f"({_SCALAR_TYPE_NAMES[source._data.dtype.name]}) must have the same scalar type")
        if source._data.ndim != len(shape) or any(n != m for k, (n, m) in enumerate(zip(source._data.shape, shape))
                                                  if k != d % len(shape)):
            raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                               f"Got self.shape = {list(shape)} source.shape = {list(source._data.shape)}")
        positions = index._data.reshape(-1)
        if positions.size != source._data.shape[d]:
            raise RuntimeError(f"index_add_(): Number of indices ({positions.size}) should be equal to source.size(dim): "
                               f"({source._data.shape[d]}), for dim: {d % len(shape)}")
        bad = positions[(positions < 0) | (positions >= shape[d])]  # no index counts from the end here
        if bad.size and len(shape) == 1:  # PyTorch's kernel for a vector has its own message
            raise IndexError("index out of range in self")
        if bad.size:
            raise RuntimeError(f"index {bad[0]} is out of bounds for dimension {d % len(shape)} with size {shape[d]}")
        return _apply("index_add", (self, source), dim=d, index=positions.astype(np.int64), alpha=alpha)

    def _index_arg(self, name: str, dim, index, what: str) -> tuple[int, np.ndarray]:
        """gather's and scatter's dim and index, checked with PyTorch's messages."""
        index = _tensor_arg(index, name, "index", 2)
        if index._data.dtype.kind not in "iu":
            raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
        if index._data.ndim != self._data.ndim:
            raise RuntimeError(f"Index tensor must have the same number of dimensions as {what} tensor")
        d = _normalize_dim(dim, self._data.ndim)
        size = self._data.shape[d] if self._data.ndim else 1
        bad = index._data[(index._data < 0) | (index._data >= size)]
        if bad.size:
            raise RuntimeError(f"index {bad.reshape(-1)[0]} is out of bounds for dimension {d % max(1, self._data.ndim)} "
                               f"with size {size}")
        for k, (n, m) in enumerate(zip(index._data.shape, self._data.shape)):
            if n > m and k != d % self._data.ndim:
                raise RuntimeError(f"Size does not match at dimension {k} expected index {list(index._data.shape)} to "
                                   f"be no larger than {what} {list(self._data.shape)} apart from dimension "
                                   f"{d % self._data.ndim}")
        return d, index._data.astype(np.int64)

    def cumsum(self, dim, *, dtype=None):
        source = self if dtype is None else self.to(dtype)
        return _apply("cumsum", (source,), dim=_normalize_dim(dim, max(1, source._data.ndim)))

    def cumprod(self, dim, *, dtype=None):
        source = self if dtype is None else self.to(dtype)
        return _apply("cumprod", (source,), dim=_normalize_dim(dim, max(1, source._data.ndim)))

    def repeat(self, *repeats):
        """`x.repeat(2, 3)`: x tiled (at least one repeat count per dim; more add leading dims)."""
        repeats = _shape_arg(repeats)
        if len(repeats) < self._data.ndim:
            raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                               "tensor")
        if any(r < 0 for r in repeats):
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(repeats)}: {list(repeats)}")
        return _apply("repeat", (self,), repeats=repeats)

    def flip(self, *dims):
        return _apply("flip", (self,), dims=_dims(_shape_arg(dims), self._data.ndim))

    # --- reductions ---------------------------------------------------------------------------
    def _reduce(self, key: str, dim, keepdim: bool, dtype_message: str | None = None):
        if dtype_message and self._data.dtype.kind != "f":
            raise RuntimeError(dtype_message.format(_SCALAR_TYPE_NAMES[self._data.dtype.name]))
        if dim is None:
            return _apply(key, (self,))
        return _apply(key + "_dim", (self,), dims=_dims(dim, self._data.ndim), keepdim=keepdim)

    def sum(self, dim=None, keepdim=False, *, dtype=None):
        source = self if dtype is None else self.to(dtype)
        return source._reduce("sum", dim, keepdim)

    def mean(self, dim=None, keepdim=False, *, dtype=None):
        source = self if dtype is None else self.to(dtype)
        return source._reduce("mean", dim, keepdim, "mean(): could not infer output dtype. Input dtype must be "
                                                     "either a floating point or complex dtype. Got: {}")

    def _extremum(self, key: str, dim, keepdim: bool, result_type, other=None):
        if isinstance(dim, Tensor):
            other, dim = dim, None
        if other is not None:
            return _binary("maximum" if key == "max" else "minimum", self, other)
        if dim is None:
            if self._data.size == 0:
                raise RuntimeError(f"{key}(): Expected reduction dim to be specified for input.numel() == 0. "
                                   "Specify the reduction dim with the 'dim' argument.")
            return _apply(key, (self,))
        d = _normalize_dim(dim, self._data.ndim)
        pick = np.argmax if key == "max" else np.argmin
        indices = np.expand_dims(pick(self._data, axis=d), d) if self._data.ndim else np.zeros((), np.int64)
        values = _apply(key + "_dim", (self,), dim=d, keepdim=keepdim, indices=indices)
        return result_type(values, Tensor._make(indices if keepdim else np.squeeze(indices, d).astype(np.int64)))

    def max(self, dim=None, keepdim=False):
        return self._extremum("max", dim, keepdim, MaxResult)

    def min(self, dim=None, keepdim=False):
        return self._extremum("min", dim, keepdim, MinResult)

    def argmax(self, dim=None, keepdim=False):
        if dim is None and self._data.size == 0:
            raise IndexError("argmax(): Expected reduction dim to be specified for input.numel() == 0.")
        if dim is None:
            return Tensor._make(np.asarray(np.argmax(self._data), dtype=np.int64))
        return self.max(dim, keepdim).indices

    def argmin(self, dim=None, keepdim=False):
        if dim is None and self._data.size == 0:
            raise IndexError("argmin(): Expected reduction dim to be specified for input.numel() == 0.")
        if dim is None:
            return Tensor._make(np.asarray(np.argmin(self._data), dtype=np.int64))
        return self.min(dim, keepdim).indices

    def softmax(self, dim, dtype=None):
        source = self if dtype is None else self.to(dtype)
        return _apply("softmax", (source,), dim=source._softmax_dim("softmax", dim))

    def log_softmax(self, dim, dtype=None):
        source = self if dtype is None else self.to(dtype)
        return _apply("log_softmax", (source,), dim=source._softmax_dim("log_softmax", dim))

    def _softmax_dim(self, name: str, dim) -> int:
        d = _normalize_dim(dim, self._data.ndim)
        if self._data.dtype.kind != "f":
            kernel = f"{name}_lastdim_kernel_impl" if d == -1 or self._data.ndim <= 1 else f"{name}_kernel_impl"
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{_SCALAR_TYPE_NAMES[self._data.dtype.name]}'")
        return d

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        """`x.norm(p=2, dim=None, keepdim=False)`: the vector p-norm over `dim` (all elements by default)."""
        source = self if dtype is None else self.to(dtype)
        if source._data.dtype.kind != "f":
            raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                               f"{_SCALAR_TYPE_NAMES[source._data.dtype.name]}")
        if isinstance(p, str):
            if p != "fro":
                raise NotImplementedError(f"norm(p={p!r}) (a matrix norm) is not supported by this engine; "
                                          "p may be a number, inf, -inf or 'fro'")
            if dim is not None and len(_dims(dim, source._data.ndim)) > 2:
                raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got " +
                                   " ".join(str(d) for d in dim))
            p = 2
        if not isinstance(p, (int, float)) or isinstance(p, bool):
            raise TypeError(f"norm(): argument 'p' must be a number or a string, not {type(p).__name__}")
        dims = None if dim is None else _dims(dim, source._data.ndim)
        if dims is not None and not dims and source._data.ndim:
            dims = None  # dim=() (an empty list) means every dim, as in linalg.vector_norm
        if source._data.size == 0 and (p < 0 or p == math.inf):
            shown = ("-" if p < 0 else "") + "inf" if abs(p) == math.inf else f"{p:g}"
            empty = [d % source._data.ndim for d in dims or () if source._data.shape[d] == 0]
            if dims is None:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {shown} norm on an empty tensor because "
                                   "the operation does not have an identity")
            if empty:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {shown} norm on the dimension {empty[0]}"
                                   "because this dimension is empty and the operation does not have an identity")
        return _apply("norm", (source,), p=int(p) if math.isfinite(p) and p == int(p) else float(p), dims=dims,
                      keepdim=bool(keepdim))

    def prod(self, dim=None, keepdim=False, *, dtype=None):
        source = self if dtype is None else self.to(dtype)
        if dim is None:
            return _apply("prod", (source,))
        if isinstance(dim, (tuple, list)):
            raise TypeError("prod(): argument 'dim' (position 1) must be int, not " + type(dim).__name__)
        d = _dims(dim, source._data.ndim)
        return _apply("prod_dim", (source,), dim=d[0] if d else None, keepdim=bool(keepdim))

    def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        """`var(dim=None, *, correction=1, keepdim=False)`, `var(dim, unbiased, keepdim=False)`, `var(unbiased)`:
        PyTorch's three forms, read as PyTorch reads them (`x.var(1)` is over dim 1)."""
        return self._moment("var", dim, unbiased, keepdim, correction)

    def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        """The same forms as `var`."""
        return self._moment("std", dim, unbiased, keepdim, correction)

    def _moment(self, key, dim, unbiased, keepdim, correction):
        if isinstance(dim, bool) and unbiased is None:  # the `var(bool unbiased)` form
            dim, unbiased = None, dim
        if unbiased is not None and not isinstance(unbiased, bool):
            raise TypeError(f"{key}() received an invalid combination of arguments - got "
                            f"({type(dim).__name__}, {type(unbiased).__name__}), but expected one of:\n"
                            " * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n"
                            " * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n"
                            " * (bool unbiased = True)\n")
        if unbiased is not None and correction is not None:
            raise TypeError(f"{key}() received an invalid combination of arguments: both unbiased and correction")
        if self._data.dtype.kind != "f":
            raise RuntimeError("std and var only support floating point and complex dtypes")
        correction = int(unbiased) if unbiased is not None else 1 if correction is None else correction
        dims = None if dim is None else _dims(dim, self._data.ndim)
        return _apply(key, (self,), dims=dims, correction=correction, keepdim=bool(keepdim))

    def logsumexp(self, dim, keepdim=False):
        dims = _dims(dim, self._data.ndim)
        return _apply("logsumexp", (self,), dims=dims if dims or not self._data.ndim else None,
                      keepdim=bool(keepdim))

    # --- products -----------------------------------------------------------------------------
    def matmul(self, other):
        return matmul(self, other)

    def mm(self, mat2):
        mat2 = _tensor_arg(mat2, "mm", "mat2")
        if self._data.ndim != 2:
            raise RuntimeError("self must be a matrix")
        if mat2._data.ndim != 2:
            raise RuntimeError("mat2 must be a matrix")
        return matmul(self, mat2)

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        """`input.addmm(mat1, mat2, beta=1, alpha=1)`: beta * input + alpha * (mat1 @ mat2), one node
        (AddmmBackward0: what nn.Linear records)."""
        mat1, mat2 = _tensor_arg(mat1, "addmm", "mat1", 2), _tensor_arg(mat2, "addmm", "mat2", 3)
        for name, m in (("mat1", mat1), ("mat2", mat2)):
            if m._data.ndim != 2:
                raise RuntimeError(f"{name} must be a matrix, got {m._data.ndim}-D tensor")
        (n, k), (k2, p) = mat1._data.shape, mat2._data.shape
        if k != k2:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{p})")
        for name, t in (("self", self), ("mat1", mat1)):
            if t._data.dtype != mat2._data.dtype:
                raise RuntimeError(f"{name} and mat2 must have the same dtype, but got "
                                   f"{_SCALAR_TYPE_NAMES[t._data.dtype.name]} and "
                                   f"{_SCALAR_TYPE_NAMES[mat2._data.dtype.name]}")
        Tensor._make(self._data).expand(n, p)  # PyTorch's message when input does not broadcast to the result
        if self._data.dtype.kind in "iu":  # integer tensors take integral factors
            beta, alpha = int(beta), int(alpha)
        return _apply("addmm", (self, mat1, mat2), beta=beta, alpha=alpha)

    def mv(self, vec):
        vec = _tensor_arg(vec, "mv", "vec")
        if self._data.ndim != 2 or vec._data.ndim != 1:
            raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self._data.ndim}, {vec._data.ndim}")
        return matmul(self, vec)

    def dot(self, tensor):
        tensor = _tensor_arg(tensor, "dot", "tensor")
        if self._data.ndim != 1 or tensor._data.ndim != 1:
            raise RuntimeError(f"1D tensors expected, but got {self._data.ndim}D and {tensor._data.ndim}D tensors")
        return matmul(self, tensor)

    def bmm(self, mat2):
        mat2 = _tensor_arg(mat2, "bmm", "mat2")
        if self._data.ndim != 3:
            raise RuntimeError("batch1 must be a 3D tensor")
        if mat2._data.ndim != 3:
            raise RuntimeError("batch2 must be a 3D tensor")
        sa, sb = self._data.shape, mat2._data.shape
        if sa[0] != sb[0] or sa[2] != sb[1]:
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{sa[0]}, {sa[2]}] "
                               f"but got: [{sb[0]}, {sb[1]}].")
        if self._data.dtype != mat2._data.dtype:
            raise RuntimeError(f"expected scalar type {_SCALAR_TYPE_NAMES[self._data.dtype.name]} but found "
                               f"{_SCALAR_TYPE_NAMES[mat2._data.dtype.name]}")
        return _apply("bmm3", (self, mat2))

    # --- shapes -------------------------------------------------------------------------------
    def view(self, *shape):
        shape = _view_shape(_shape_arg(shape), self._data.size)
        if not self._data.flags.c_contiguous and not _viewable(self._data, shape):
            raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                               "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
        return _apply("view", (self,), shape=shape)

    def reshape(self, *shape):
        """A view when the memory layout allows one (as PyTorch decides), else a copy."""
        shape = _view_shape(_shape_arg(shape), self._data.size)
        if self._data.flags.c_contiguous:
            return _apply("view", (self,), shape=shape)
        if _viewable(self._data, shape):
            return _apply("reshape_alias", (self,), shape=shape)
        return _apply("unsafe_view", (self.clone(),), shape=shape)

    def view_as(self, other):
        return self.view(other.shape)

    def reshape_as(self, other):
        return self.reshape(other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        n = self._data.ndim
        if n == 0:
            _normalize_dim(start_dim, 0), _normalize_dim(end_dim, 0)
            return self.reshape(1)
        start, end = _normalize_dim(start_dim, n) % n, _normalize_dim(end_dim, n) % n
        if start > end:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        if start == end:
            return self
        shape = self._data.shape
        return self.reshape(shape[:start] + (math.prod(shape[start:end + 1]),) + shape[end + 1:])

    def unsqueeze(self, dim):
        d = _normalize_dim(dim, self._data.ndim + 1)
        return _apply("unsqueeze", (self,), dim=d)

    def squeeze(self, dim=None):
        if dim is None:
            return _apply("squeeze", (self,))
        d = _normalize_dim(dim, self._data.ndim)
        return _apply("squeeze_dim", (self,), dim=d)

    def expand(self, *shape):
        shape = list(_shape_arg(shape))
        lead = len(shape) - self._data.ndim
        if lead < 0:
            raise RuntimeError(f"expand(torch.{_SCALAR_TYPE_NAMES[self._data.dtype.name]}Tensor{{{list(self.shape)}}}, "
                               f"size={shape}): the number of sizes provided ({len(shape)}) must be greater or equal "
                               f"to the number of dimensions in the tensor ({self._data.ndim})")
        for i, s in enumerate(self._data.shape):
            if shape[lead + i] == -1:
                shape[lead + i] = s
        try:
            np.broadcast_shapes(self._data.shape, tuple(shape))
        except ValueError:
            raise RuntimeError(f"The expanded size of the tensor ({shape[-1]}) must match the existing size "
                               f"({self._data.shape[-1]}) at non-singleton dimension {len(shape) - 1}.  "
                               f"Target sizes: [{', '.join(map(str, shape))}].  Tensor sizes: "
                               f"[{', '.join(map(str, self._data.shape))}]") from None
        return _apply("expand", (self,), shape=tuple(shape))

    def expand_as(self, other):
        return self.expand(other.shape)

    def t(self):
        if self._data.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D")
        return _apply("t", (self,))

    @property
    def T(self):  # noqa: N802 - PyTorch's name
        return self.permute(*reversed(range(self._data.ndim)))

    @property
    def mT(self):  # noqa: N802
        return self.transpose(-2, -1)

    def transpose(self, dim0, dim1):
        n = self._data.ndim
        return _apply("transpose", (self,), dim0=_normalize_dim(dim0, n), dim1=_normalize_dim(dim1, n))

    def permute(self, *dims):
        dims = tuple(d % max(1, self._data.ndim) for d in _shape_arg(dims))
        if sorted(dims) != list(range(self._data.ndim)):
            raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the "
                               "length of the desired ordering of dimensions i.e. input.dim() = "
                               f"{self._data.ndim} is not equal to len(dims) = {len(dims)}")
        return _apply("permute", (self,), dims=dims)

    def clone(self):
        return _apply("clone", (self,))

    def contiguous(self):
        return self if self._data.flags.c_contiguous else self.clone()

    def is_contiguous(self) -> bool:
        return bool(self._data.flags.c_contiguous)

    def __getitem__(self, key):
        return _index(self, key)

    def __setitem__(self, key, value) -> None:
        key = key if isinstance(key, tuple) else (key,)
        value = _as_operand(value)
        if any(isinstance(k, (list, range, np.ndarray, Tensor)) for k in key):  # advanced indexing: index_put_
            self._check_inplace()
            np_key = _advanced_key(self, key)
            self._inplace(_apply("index_put", (self, value), key=np_key))
            return
        if self._requires_grad and self._grad_fn is None and _modes().grad:  # x[i] = v writes into a view of x
            raise RuntimeError(LEAF_VIEW_INPLACE)
        self._check_inplace()
        region = np.arange(self._data.size).reshape(self._data.shape)[_full_key(key, self._data.ndim)]
        self._inplace(_apply("copy_slices", (self, value), index=np.array(region)))

    # --- dtype conversion -----------------------------------------------------------------------
    def to(self, *args, dtype=None, device=None, non_blocking=False, copy=False):
        """`x.to(dtype)`, `x.to(device)`, `x.to(device, dtype)`, `x.to(other)` (other's dtype); CPU only."""
        dtypes.check_device(device)
        for arg in args:
            if isinstance(arg, Tensor):
                dtype = arg.dtype
            elif isinstance(arg, (str, dtypes.device)):
                dtypes.check_device(arg)
            elif arg is not None:
                dtype = arg
        if dtype is None:
            return self.clone() if copy else self
        result = self._convert(dtypes.to_numpy(dtype))
        return result.clone() if copy and result is self else result

    def type(self, dtype=None):
        return self.to(dtype)

    def _convert(self, np_dtype):
        if self._data.dtype == np_dtype:
            return self
        if np_dtype.kind == "f" and (self._requires_grad or _modes().forward_ad is not None):
            return _apply("to_copy", (self,), dtype=np_dtype)
        return Tensor._make(self._data.astype(np_dtype))

    def float(self):
        return self._convert(np.dtype(np.float32))

    def double(self):
        return self._convert(np.dtype(np.float64))

    def long(self):
        return self._convert(np.dtype(np.int64))

    def int(self):
        return self._convert(np.dtype(np.int32))

    def bool(self):
        return self._convert(np.dtype(np.bool_))

    # --- in-place ---------------------------------------------------------------------------------
    def _inplace(self, result: "Tensor") -> "Tensor":
        """Write `result` into this tensor's storage (its views and base see it) and, if recorded, make its
        node this tensor's grad_fn (or, for a view, rebase the base's graph: `_rebase`).

        The node read this tensor's value before the write: where it holds that array it gets a copy (PyTorch
        saves `original_self` so), and every other node that saved it sees the new version and refuses."""
        if result._data.shape != self._data.shape:
            raise RuntimeError(f"output with shape [{', '.join(map(str, self._data.shape))}] doesn't match the "
                               f"broadcast shape [{', '.join(map(str, result._data.shape))}]")
        if _KIND_RANK[result._data.dtype.kind] > _KIND_RANK[self._data.dtype.kind]:
            raise RuntimeError(f"result type {_SCALAR_TYPE_NAMES[result._data.dtype.name]} can't be cast to the "
                               f"desired output type {_SCALAR_TYPE_NAMES[self._data.dtype.name]}")
        _check_overlap(self._data)
        self._bump_version()
        forward_ad = _modes().forward_ad
        if forward_ad is not None:
            forward_ad.inplace(self, result)
        node = result._grad_fn
        storage = self._data
        if node is not None and any(a is storage for a in node.arrays):
            node.arrays = tuple(a.copy() if a is storage else a for a in node.arrays)
        np.copyto(storage, result._data, casting="unsafe")
        if node is None:
            return self
        node.versions = tuple((self._shared_version(), self._version, True) if is_output else (t, v, False)
                              for t, v, is_output in node.versions if t is not self)
        view = getattr(self, "_view", None)
        if view is not None:
            self._rebase(view, result)
        else:
            self._grad_fn, self._requires_grad = node, True
            _refresh_views(self)
        return self

    def _rebase(self, view: tuple, result: "Tensor") -> None:
        """After an in-place change of this view (already in the shared storage): the base's grad_fn becomes
        CopySlices(base, result), and this view's AsStridedBackward0 of the base, as PyTorch rebases them."""
        base, ops = view
        index = _view_index(base, ops)
        rebased = _run(OPS["copy_slices"], (base, result), {"index": index})
        base._grad_fn, base._requires_grad = rebased._grad_fn, True
        strided = _run(OPS["as_strided"], (base,), {"index": index})
        self._grad_fn, self._requires_grad = strided._grad_fn, True
        _refresh_views(base, self)

    @property
    def _version(self) -> int:
        """PyTorch's version counter: in-place changes of this tensor's storage (shared with its views and
        `detach()`es)."""
        vc = self._vc
        return 0 if vc is None else vc[0]

    @_version.setter
    def _version(self, value: int) -> None:
        self._vc = None if value == 0 else [value]

    @property
    def _base(self):
        """The tensor this one is a view of (None if it is not a view)."""
        view = getattr(self, "_view", None)
        return None if view is None else view[0]

    def _bump_version(self) -> None:
        """Count an in-place change (PyTorch's version counter, shared by the views of one storage)."""
        vc = self._vc
        if vc is None:
            self._vc = [1]
        else:
            vc[0] += 1

    def _shared_version(self) -> list:
        """This tensor's version cell, made on first use: views, detach() and saving nodes share it."""
        vc = self._vc
        if vc is None:
            vc = self._vc = [0]
        return vc

    def _check_inplace(self) -> None:
        modes = _modes()
        if getattr(self, "_inference", False) and not modes.inference:
            raise RuntimeError(INFERENCE_INPLACE)
        if self._requires_grad and modes.grad:
            if self._grad_fn is None:
                raise RuntimeError(LEAF_INPLACE)
            base = self._base
            if base is not None and base._requires_grad and base._grad_fn is None:
                raise RuntimeError(LEAF_VIEW_INPLACE)

    def add_(self, other, alpha=1):
        self._check_inplace()
        return self._inplace(self.add(other, alpha))

    def sub_(self, other, alpha=1):
        self._check_inplace()
        return self._inplace(self.sub(other, alpha))

    def mul_(self, other):
        self._check_inplace()
        return self._inplace(self * other)

    def div_(self, other):
        self._check_inplace()
        return self._inplace(self / other)

    def zero_(self):
        self._check_inplace()
        if self._grad_fn is None:
            self._data[...] = 0
            self._bump_version()
            if _modes().forward_ad is not None:
                _modes().forward_ad.filled(self)
            return self
        return self._inplace(_apply("zero", (self,)))

    def fill_(self, value):
        self._check_inplace()
        value = _fill_value(value, "fill_")
        self._data[...] = value
        self._bump_version()
        if _modes().forward_ad is not None:
            _modes().forward_ad.filled(self)
        return self

    def copy_(self, src):
        self._check_inplace()
        src = _tensor_arg(src, "copy_", "src")
        np.broadcast_shapes(src._data.shape, self._data.shape)
        modes = _modes()
        if not (modes.grad and src._requires_grad) and modes.forward_ad is None:
            _check_overlap(self._data)
            self._bump_version()
            np.copyto(self._data, src._data, casting="unsafe")
            return self
        return self._inplace(_apply("copy", (self, src)))

    __iadd__ = add_
    __isub__ = sub_
    __imul__ = mul_
    __itruediv__ = div_


_TENSOR_TYPES = {Tensor}  # Tensor and its subclasses the engine makes (nn.Parameter adds itself)


def _floor_divide_(self, other):
    """`x //= y`: the in-place op (its missing derivative is named floor_divide_, as in PyTorch)."""
    self._check_inplace()
    return self._inplace(_binary("floor_divide_", self, other))


Tensor.floor_divide_ = Tensor.__ifloordiv__ = _floor_divide_


def _fill_value(value, where: str):
    """A fill value as PyTorch accepts it: a number (or a one-element tensor), never text or objects."""
    if isinstance(value, Tensor):
        return value.item()
    if isinstance(value, (int, float, bool, np.number, np.bool_)):
        return value
    raise TypeError(f"{where}(): argument 'fill_value' must be Number, not {type(value).__name__}")


def cat(tensors, dim=0) -> Tensor:
    """`torch.cat`: join tensors along an existing dim."""
    tensors = [_as_operand(t) for t in tensors]
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    d = _normalize_dim(dim, tensors[0]._data.ndim)
    for i, t in enumerate(tensors[1:], 1):
        a, b = tensors[0]._data.shape, t._data.shape
        if len(a) != len(b) or any(x != y for k, (x, y) in enumerate(zip(a, b)) if k != d % len(a)):
            k = next((k for k, (x, y) in enumerate(zip(a, b)) if k != d % len(a) and x != y), 0)
            raise RuntimeError(f"Sizes of tensors must match except in dimension {d % len(a)}. Expected size "
                               f"{a[k] if k < len(a) else 0} but got size {b[k] if k < len(b) else 0} for tensor "
                               f"number {i} in the list.")
    return _run(variadic("cat", len(tensors)), tuple(tensors), {"dim": d})


def stack(tensors, dim=0) -> Tensor:
    """`torch.stack`: join tensors along a new dim."""
    tensors = [_as_operand(t) for t in tensors]
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, t in enumerate(tensors[1:], 1):
        if t._data.shape != tensors[0]._data.shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0]._data.shape)} at entry 0 and {list(t._data.shape)} at entry {i}")
    d = _normalize_dim(dim, tensors[0]._data.ndim + 1)
    return _run(variadic("stack", len(tensors)), tuple(tensors), {"dim": d})


def where(condition, input, other) -> Tensor:  # noqa: A002 - PyTorch's argument names
    """`torch.where(condition, input, other)`: pick elementwise; the gradient follows the pick."""
    input, other = _as_operand(input), _as_operand(other)
    if not isinstance(condition, Tensor):
        guard_shape(_leading_shape(condition))
    a = input if isinstance(input, Tensor) else Tensor._make(np.asarray(input, dtype=np.float32))
    cond = np.asarray(condition._data if isinstance(condition, Tensor) else condition, dtype=bool)
    return _apply("where", (a, other), condition=cond)


def _viewable(array: np.ndarray, shape) -> bool:
    """Whether `array` can be seen in `shape` without copying (its strides allow it)."""
    try:
        np.reshape(array, shape, copy=False)
        return True
    except ValueError:
        return False


def _full_key(key, ndim: int) -> tuple:
    """A numpy key that names every dim (Ellipsis spelled out, trailing `:` added), so that a rule can
    prefix it with `...` for leading batch axes."""
    key = tuple(k._data if isinstance(k, Tensor) else k for k in (key if isinstance(key, tuple) else (key,)))
    used = sum(0 if k is None or k is Ellipsis else np.ndim(k) if np.asarray(k).dtype == bool else 1 for k in key)
    ellipses = [i for i, k in enumerate(key) if k is Ellipsis]  # (`in` would compare arrays elementwise)
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    fill = (slice(None),) * max(0, ndim - used)
    if ellipses:
        return key[: ellipses[0]] + fill + key[ellipses[0] + 1:]
    return key + fill


def _advanced_key(t: Tensor, key: tuple) -> tuple:
    """A numpy key for advanced indexing (lists, ranges, integer or bool tensors), checked with PyTorch's
    errors, naming every dim (so a rule can prefix it with `...` for leading batch axes)."""
    out = []
    for k in key:
        if isinstance(k, Tensor):
            k = k._data
        elif isinstance(k, range):
            k = np.arange(k.start, k.stop, k.step, dtype=np.int64)
        elif isinstance(k, list):
            k = np.asarray([x._data if isinstance(x, Tensor) else x for x in k])
            if k.size == 0:
                k = k.astype(np.int64)
        if isinstance(k, np.ndarray):
            if k.dtype.kind not in "iub":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            if k.dtype == np.bool_ and k.ndim:
                out.extend(np.nonzero(k))
                continue
        elif isinstance(k, float):
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                             "valid indices (got float)")
        out.append(k)
    np_key = _full_key(tuple(out), t._data.ndim)
    try:
        t._data[np_key]
    except IndexError as err:
        raise IndexError(re.sub(r"for axis \d+", "for dimension 0", str(err))) from None
    return np_key


def _index(t: Tensor, key) -> Tensor:
    """Indexing as PyTorch records it: a chain of select / slice / unsqueeze nodes, or one index node."""
    lone_slice = isinstance(key, slice)  # PyTorch records x[:] as a slice, but skips full slices in x[:, 1:]
    key = key if isinstance(key, tuple) else (key,)
    if t._data.ndim == 0 and any(isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in key):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                         "C++ to convert a 0-dim tensor to a number")
    # a 0-dim integer tensor indexes like an int (PyTorch records a select)
    key = tuple(int(k._data) if isinstance(k, Tensor) and k._data.ndim == 0 and k._data.dtype.kind in "iu" else k
                for k in key)
    if any(isinstance(k, _ADVANCED) for k in key):
        return _mixed_index(t, key)
    out = _basic_index(t, key, lone_slice)
    return _apply("alias", (t,)) if out is t else out


_ADVANCED = (list, range, np.ndarray, Tensor)


def _mixed_index(t: Tensor, key: tuple) -> Tensor:
    """PyTorch's order for a key with lists or tensors in it: the basic entries first (select, slice and
    unsqueeze nodes: `x[0, [1, 2]]` is SelectBackward0 then IndexBackward0), then one index op with the advanced
    entries on the dims that are left; so `x[0, :, [1, 2]]` has PyTorch's shape, not numpy's."""
    basic, placed = [], []  # the key with each advanced entry as full slices; (its first slice, entry, dims)
    for k in key:
        if isinstance(k, _ADVANCED):
            array = k._data if isinstance(k, Tensor) else None
            dims = array.ndim if array is not None and array.dtype == np.bool_ and array.ndim else 1
            placed.append((len(basic), k, dims))
            basic.extend([slice(None)] * dims)
        else:
            basic.append(k)
    if basic.count(Ellipsis) == 1:  # spelled out here, so that the entries' positions follow it
        at = basic.index(Ellipsis)
        fill = t._data.ndim - (len(basic) - 1 - basic.count(None))
        basic[at: at + 1] = [slice(None)] * fill
        placed = [(p if p < at else p + fill - 1, k, dims) for p, k, dims in placed]
    out = _basic_index(t, tuple(basic), False)
    # where each advanced entry's dims are in `out`: ints before it removed dims, Nones added some
    dim_of, dim = {}, 0
    for i, k in enumerate(basic):
        dim_of[i] = dim
        if k is None or isinstance(k, slice):
            dim += 1
    advanced = [slice(None)] * out._data.ndim
    for position, k, dims in reversed(placed):
        at = dim_of[position]
        advanced[at: at + dims] = [k]
    return _apply("index", (out,), key=_advanced_key(out, tuple(advanced)))


def _basic_index(t: Tensor, key: tuple, lone_slice: bool) -> Tensor:
    """Ints, slices, None and Ellipsis, as PyTorch records them: select, slice (not a full one, unless the key
    is one lone slice) and unsqueeze nodes, in order; `t` itself when the key changes nothing."""
    if key.count(Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if Ellipsis in key:
        at = key.index(Ellipsis)
        fill = t._data.ndim - (len(key) - 1 - key.count(None))
        key = key[:at] + (slice(None),) * fill + key[at + 1:]
    if len(key) - key.count(None) > t._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {t._data.ndim}")
    out, dim = t, 0
    for k in key:
        if k is None:
            out = out.unsqueeze(dim)
            dim += 1
        elif isinstance(k, slice):
            size = out._data.shape[dim]
            start, stop, step = k.indices(size)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            if lone_slice or (start, stop, step) != (0, size, 1):
                out = _apply("slice", (out,), key=(slice(None),) * dim + (slice(start, stop, step),)
                             + (slice(None),) * (out._data.ndim - dim - 1))
            dim += 1
        elif isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            size = out._data.shape[dim]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for dimension {dim} with size {size}")
            out = _apply("select", (out,), key=(slice(None),) * dim + (int(k) % size,)
                         + (slice(None),) * (out._data.ndim - dim - 1))
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                             f"are valid indices (got {type(k).__name__})")
    return out


def matmul(a, b) -> Tensor:
    """`torch.matmul`: dot, mv, mm or batched, by the operands' ranks, with PyTorch's errors."""
    a, b = _as_operand(a), _as_operand(b)
    na, nb = a._data.ndim, b._data.ndim
    if na == 0 or nb == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {na}D and {nb}D")
    sa, sb = a._data.shape, b._data.shape
    if a._data.dtype != b._data.dtype:
        _matmul_dtype_error(a._data.dtype.name, b._data.dtype.name, na, nb)
    if na == 1 and nb == 1:
        if sa != sb:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{sa[0]}] and src [{sb[0]}] to have the "
                               f"same number of elements, but got {sa[0]} and {sb[0]} elements respectively")
        return _apply("dot", (a, b))
    if na == 2 and nb == 1:
        if sa[1] != sb[0]:
            raise RuntimeError(f"size mismatch, got input ({sa[0]}), mat ({sa[0]}x{sa[1]}), vec ({sb[0]})")
        return _apply("mv", (a, b))
    if na == 1 and nb == 2:
        if sa[0] != sb[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied (1x{sa[0]} and {sb[0]}x{sb[1]})")
        return _apply("squeeze_matmul", (matmul(a.unsqueeze(0), b),), dim=-2)
    if na == 2 and nb == 2:
        if sa[1] != sb[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sa[0]}x{sa[1]} and {sb[0]}x{sb[1]})")
        return _apply("mm", (a, b))
    if na == 3 and nb == 3 and sa[0] != sb[0]:  # a batch of one that needs a gradient is one matrix (as PyTorch)
        if sa[0] == 1 and a._requires_grad:
            a = a.squeeze(0)
        elif sb[0] == 1 and b._requires_grad:
            b = b.squeeze(0)
    return _folded_matmul(a, b) if _should_fold(a, b) else _batched_matmul(a, b)


def _should_fold(a: Tensor, b: Tensor) -> bool:
    """PyTorch's `should_fold`: fold the larger operand's batch into its rows (one mm or mv) when the other has
    at most 2 dims and either needs a gradient (its backward is then one mm) or the fold is a view."""
    larger = a._data.ndim >= b._data.ndim
    t1 = a._data if larger else np.swapaxes(b._data, -1, -2)
    if not (t1.ndim >= 3 and (b if larger else a)._data.ndim <= 2):
        return False
    if (b if larger else a)._requires_grad:
        return True
    if a._data.ndim == 2:  # it would need a transposed copy of the result
        return False
    if t1.size == 0:
        return True
    return all(t1.strides[i] == t1.strides[i + 1] * t1.shape[i + 1] for i in range(t1.ndim - 2))


def _folded_matmul(a: Tensor, b: Tensor) -> Tensor:
    """PyTorch's fold: (…, n, k) @ (k, p) as one (N, k) mm (or mv), its result viewed back (`_unsafe_view`);
    with the larger operand second, the same on the transposes, transposed back into a contiguous copy."""
    transpose = b._data.ndim > a._data.ndim
    t1 = b.mT if transpose else a
    t2 = (a.t() if a._data.ndim == 2 else a) if transpose else b
    shape = t1._data.shape[:-1]
    rows, k = math.prod(shape), t1._data.shape[-1]
    folded = t1.reshape(rows, k)
    if t2._data.ndim == 1:
        if t2._data.shape[0] != k:
            raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{k}), vec ({t2._data.shape[0]})")
        return _apply("unsafe_view", (_apply("mv", (folded, t2)),), shape=shape)
    k2, p = t2._data.shape
    if k2 != k:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and {k2}x{p})")
    out = _apply("unsafe_view", (_apply("mm", (folded, t2)),), shape=shape + (p,))
    return out.mT.contiguous() if transpose else out


def _batched_matmul(a: Tensor, b: Tensor) -> Tensor:
    """PyTorch's batched matmul: both operands expanded to the broadcast batch and reshaped to 3 dims, one bmm,
    its result viewed back (`_unsafe_view`)."""
    sa, sb = a._data.shape, b._data.shape
    n, m1 = (sa[-2] if len(sa) > 1 else 1), sa[-1]
    m2, p = (sb[-2], sb[-1]) if len(sb) > 1 else (sb[0], 1)
    batch = broadcast_shapes(sa[:-2], sb[:-2])
    count = math.prod(batch)
    left = a.expand(batch + (n, m1)).reshape(count, n, m1)
    if len(sb) == 1:
        right = b.expand(batch + (m2,)).reshape(count, m2).unsqueeze(2)
    else:
        right = b.expand(batch + (m2, p)).reshape(count, m2, p)
    if m1 != m2:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{count}, {m1}] but got: "
                           f"[{count}, {m2}].")
    out = _apply("bmm3", (left, right))
    if len(sb) == 1:
        out = out.squeeze(-1)
    shape = batch + ((n,) if len(sa) > 1 else ()) + ((p,) if len(sb) > 1 else ())
    return _apply("unsafe_view", (out,), shape=shape)


def _matmul_dtype_error(da: str, db: str, na: int, nb: int):
    """PyTorch's message for operands of different dtypes, which depends on the kernel matmul picks."""
    if na == 1 and nb == 1:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_SCALAR_TYPE_NAMES[da]} and "
                           f"{_SCALAR_TYPE_NAMES[db]}")
    if nb == 1:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_SCALAR_TYPE_NAMES[db]}, "
                           f"{_SCALAR_TYPE_NAMES[da]}, and {_SCALAR_TYPE_NAMES[db]}")
    if nb == 2:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_C_TYPE_NAMES[da]} != "
                           f"{_C_TYPE_NAMES[db]}")
    raise RuntimeError(f"expected scalar type {_SCALAR_TYPE_NAMES[da]} but found {_SCALAR_TYPE_NAMES[db]}")


def _nested_shape(data, dim=0):
    """The shape of nested lists, with PyTorch's message for ragged ones."""
    if not isinstance(data, (list, tuple)):
        return ()
    if not data:
        return (0,)
    inner = [_nested_shape(d, dim + 1) for d in data]
    first = inner[0]
    for d, shape in zip(data, inner):
        if shape != first:
            length = len(d) if isinstance(d, (list, tuple)) else None
            expected = first[0] if first else None
            if length is None or expected is None:
                raise ValueError(f"expected sequence of length {expected} at dim {dim + 1} (got {length})")
            raise ValueError(f"expected sequence of length {expected} at dim {dim + 1} (got {length})")
    return (len(data),) + first


def _leading_shape(data) -> tuple:
    """The shape nested lists will have, read along their first elements (numpy makes that shape or refuses
    ragged data): what the size guard sees before anything is converted. Shared rows (`[[0] * n] * n`) cost
    nothing to write and n² to convert."""
    shape = []
    while isinstance(data, (list, tuple)) and len(shape) < 64:
        shape.append(len(data))
        if not data:
            return tuple(shape)
        data = data[0]
    return tuple(shape) + (tuple(data._data.shape) if isinstance(data, Tensor) else np.shape(data))


def _to_array(data, np_dtype=None) -> np.ndarray:
    """Turn Python data (numbers, nested lists, Tensors, numpy arrays) into an array with PyTorch's dtypes."""
    if isinstance(data, Tensor):
        array = data._data
    elif isinstance(data, np.ndarray):
        array = data
    else:
        if isinstance(data, (list, tuple)):
            guard_shape(_leading_shape(data))
            data = [d._data.tolist() if isinstance(d, Tensor) else d for d in data]
            try:
                array = np.asarray(data)
            except ValueError:  # ragged: find where, for PyTorch's message
                _nested_shape(data)
                raise
            if array.dtype == object:
                _nested_shape(data)
        elif isinstance(data, (int, float, bool, np.number, np.bool_)):
            array = np.asarray(data)
        else:
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        if np_dtype is None:
            kind = array.dtype.kind
            np_dtype = {"f": np.float32, "i": np.int64, "u": np.int64, "b": np.bool_}.get(kind)
            if np_dtype is None:
                raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    guard_shape(array.shape)
    if np_dtype is None:
        dtypes.from_numpy(array.dtype)  # PyTorch's TypeError for object/str/void arrays
    return np.array(array, dtype=np_dtype)


def new_leaf(data: np.ndarray) -> Tensor:
    """A tensor a factory function makes (torch.tensor, ones, arange…): an inference tensor in inference mode."""
    t = Tensor._make(data)
    if _modes().inference:
        t._inference = True
    return t


def tensor(data, dtype=None, requires_grad=False, device=None) -> Tensor:
    """`torch.tensor`: a new leaf tensor copied from `data`."""
    t = new_leaf(_to_array(data, None if dtype is None else dtypes.to_numpy(dtype)))
    if requires_grad:
        if t._data.dtype.kind != "f":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t._requires_grad = True
    return t


def _input_list(inputs) -> list:
    """`inputs=` of backward: a Tensor or a non-empty sequence of Tensors that require grad."""
    inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    for x in inputs:
        if not x.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    return inputs


from engine import backward as _backward  # noqa: E402 - the one backward, a layer above Tensor
from engine import xp_tensor as _xp_tensor  # noqa: E402,F401 - registers the Tensor namespace of engine.xp
