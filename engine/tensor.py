"""`Tensor`: a numpy array plus the autograd bookkeeping PyTorch learners see, and the one dispatch.

`_run(op, inputs, attrs)` runs an op record (`engine.ops`): check, shape and size guard, forward, dtype, view
link, tangent, and — when a gradient is needed — the `OpNode` holding what the record declares its rules read.
The class body here holds the data and the Python protocol; its methods come in groups from `engine.methods` (the
autograd attributes — `grad`, `grad_fn`, `backward`, hooks, `detach` —, element-wise, reductions, matrix products,
shapes, indexing, in-place, conversions) and from the records, attached by `engine.registry`.
"""
from __future__ import annotations

import warnings
import weakref

import numpy as np

from engine import dtypes, state
from engine.dims import nested_shape, normalize_dim, shape_arg
from engine.graph import (
    SECOND_BACKWARD,
    VIEW_IN_INFERENCE,
    VIEW_IN_NO_GRAD,
    Node,
    guard_shape,
    node_class,
    node_classes,
    record_trace,
)
from engine.ops import OPS, saved_tensors
from engine.printing import format_tensor

_FLOAT32 = np.dtype(np.float32)
_FLOAT64 = np.dtype(np.float64)
_new = object.__new__
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
    # the inputs' arrays, one tuple for the forward's call and the node (one and two inputs, nearly every op, without
    # a list: this runs for every op)
    if len(inputs) == 1:
        a = inputs[0]
        arrays = (a._data if type(a) in _TENSOR_TYPES else a,)
    elif len(inputs) == 2:
        a, b = inputs
        arrays = (a._data if type(a) in _TENSOR_TYPES else a, b._data if type(b) in _TENSOR_TYPES else b)
    else:
        arrays = tuple([t._data if type(t) in _TENSOR_TYPES else t for t in inputs])
    if op.check is not None:
        op.check(arrays, attrs)
    if modes is None:
        modes = _modes()
    if modes.size_guard is not None and op.shape is not None:
        modes.size_guard(*op.shape(arrays, attrs))
    out = op.forward(*arrays, **attrs) if attrs else op.forward(*arrays)  # (`**{}` would make a dict)
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
    result = _new(Tensor)  # (`Tensor._make(out)`, without its call: this runs for every op)
    result._data, result._requires_grad = out, False
    result._grad = result._grad_fn = result._accumulator = result._vc = result._view = None
    result._inference = False
    if op.view:
        _link_view(result, inputs[0], op, attrs)
    if modes.forward_ad is not None and not modes.inference:  # (inference tensors carry no tangent)
        modes.forward_ad.propagate(op, inputs, attrs, result)
    if not modes.grad:
        if op.view:  # a view is an inference tensor only of one; of a tensor that requires grad, see ViewWithoutGrad
            result._inference = inputs[0]._inference
            if inputs[0]._requires_grad:
                result._requires_grad = True
                result._accumulator = VIEW_IN_INFERENCE if modes.inference else VIEW_IN_NO_GRAD
        elif modes.inference:
            result._inference = True
        return result
    # per differentiable input, where its gradient goes (None: nowhere, also for a view made with grad mode off), and
    # `wanted`, a bit per input that requires grad
    if not op.vjp:  # (logical_not, argmax…: nothing to differentiate)
        return result
    if len(op.vjp) == 1 or len(inputs) == 1:  # (one and two inputs without a list: this runs for every op)
        a = inputs[0]
        wanted = type(a) in _TENSOR_TYPES and a._requires_grad
        parents = (a._grad_fn or a._grad_edge() if wanted else None,)
    elif len(op.vjp) == 2:
        a, b = inputs[0], inputs[1]
        wants_a = type(a) in _TENSOR_TYPES and a._requires_grad
        wants_b = type(b) in _TENSOR_TYPES and b._requires_grad
        parents = (a._grad_fn or a._grad_edge() if wants_a else None, b._grad_fn or b._grad_edge() if wants_b else None)
        wanted = wants_a | wants_b << 1
    else:
        found, wanted = [], 0
        for i, t in enumerate(inputs[: len(op.vjp)]):
            wants = type(t) in _TENSOR_TYPES and t._requires_grad
            found.append(t._grad_fn or t._grad_edge() if wants else None)
            wanted |= wants << i
        parents = tuple(found)
    if not wanted:
        return result
    result._requires_grad = True
    kind = _OP_NODES.get(op.grad_fn) or node_class(OpNode, op)
    node = result._grad_fn = kind(op, arrays, attrs, out, parents)
    if modes.anomaly:
        record_trace(node)
    if not op.saves:
        return result
    # the versions of the tensors this node's rules will read (for the in-place check). A saved input is kept
    # with its version; the saved result only by its version cell, since the result holds this node (`grad_fn`)
    # and a reference back would make every such graph a cycle that only the garbage collector can free
    # (PyTorch's SavedVariable drops the grad_fn of an output too)
    positions, saves_result = saved_tensors(op, wanted)
    versions = []
    for i in positions:
        t = inputs[i]
        if type(t) in _TENSOR_TYPES:
            if t._inference:
                raise RuntimeError(INFERENCE_SAVED)
            vc = t._vc  # (`t._version`, without the property's call)
            versions.append((t, 0 if vc is None else vc[0], False))
    if saves_result:
        cell = result._vc
        if cell is None:  # (a new result: its version cell is made here, unless it is a view that shares one)
            cell = result._vc = [0]
        versions.append((cell, cell[0], True))
    if versions:
        node.versions = versions
    return result


def _link_view(result: "Tensor", src: "Tensor", op, attrs: dict) -> None:
    """A view shares its base's storage and version counter, and remembers the view ops that take it from
    the base, so that an in-place change of it can rebase the base's graph (`Tensor._rebase`)."""
    view = src._view
    base, ops = (src, ()) if view is None else view
    result._view = (base, ops + ((op, attrs),))
    result._vc = base._shared_version()
    views = getattr(base, "_views", None)
    if views is None:
        base._views = [weakref.ref(result)]  # (weak references, never compared: Tensor == is elementwise)
    else:
        views.append(weakref.ref(result))


class OpNode(Node):
    """The node an op's dispatch records (`grad_fn`): a `Node` that also shows what it saved, by PyTorch's
    names (`y.grad_fn._saved_self`, `_saved_result`, `_saved_exponent`): properties of its op's node class.
    (Properties, not a `__getattr__`: that would slow every attribute read of every node.)"""

    __slots__ = ()

    @classmethod
    def named(cls, op) -> type:
        kind = super().named(op)
        for name in saved_names(op):
            setattr(kind, f"_saved_{name}", _saved_property(name))
        return kind


_OP_NODES = node_classes(OpNode)  # dispatch's node classes by name (`engine.graph.node_class` makes them)


def _saved_property(name: str) -> property:
    def read(node):
        if name not in saved_names(node.op):  # (a node of another op of the same name: PyTorch has no such)
            raise AttributeError(f"'{type(node).__name__}' object has no attribute '_saved_{name}'")
        return saved_value(node, name)
    return property(read, doc=f"`grad_fn._saved_{name}`, as PyTorch names what the node saved.")


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


def binary_operator(key: str):
    """The operator method `x ∘ other` of op `key` (`__add__`, `__mul__`…): `_binary` with the record looked up once,
    one call fewer on every `x * 2`."""
    op = OPS[key]

    def operator(self, other):
        if type(other) is not Tensor and type(other) is not float and type(other) is not int:
            other = _as_operand(other)
        return _run(op, (self, other), _NO_ATTRS)
    return operator


def _tensor_arg(value, function: str, name: str, position: int = 1) -> "Tensor":
    """An argument PyTorch only accepts as a Tensor, with its TypeError otherwise."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")
    return value


_CPU = dtypes.device("cpu")


class Tensor:
    """A multi-dimensional array that can record the operations applied to it."""

    # _tangent is set only on dual tensors (torch.autograd.forward_ad), _views only on a base of views, so making
    # a tensor costs nothing more; _view and _inference, read on every in-place op and every save, are set at birth
    __slots__ = ("_data", "_requires_grad", "_grad", "_grad_fn", "_accumulator", "_vc", "_view", "_views", "_inference",
                 "_tangent", "__weakref__")
    __array_priority__ = 1000  # numpy scalars on the left defer to Tensor's reflected operators

    def __init__(self, *args) -> None:
        """The legacy constructor `torch.Tensor(data)` / `torch.Tensor(2, 3)`: always float32."""
        if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
            data = _to_array(args[0], dtypes.float32.numpy)
        else:
            shape = shape_arg(args)
            guard_shape(shape)
            data = np.zeros(shape, dtype=np.float32)
        self._data, self._requires_grad, self._grad, self._grad_fn, self._accumulator = data, False, None, None, None
        self._vc = self._view = None
        self._inference = False

    @classmethod
    def _make(cls, data: np.ndarray, requires_grad: bool = False) -> "Tensor":
        t = object.__new__(cls)
        t._data = data
        t._requires_grad = requires_grad
        t._grad = t._grad_fn = t._accumulator = t._vc = t._view = None
        t._inference = False
        return t

    # --- inspection ---------------------------------------------------------------------------
    @property
    def shape(self) -> dtypes.Size:
        return dtypes.Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return dtypes.Size(self._data.shape)
        return self._data.shape[normalize_dim(dim, self._data.ndim)]

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

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

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
        if self._requires_grad and not _WARNED_ONCE.get("float"):  # PyTorch's TORCH_WARN_ONCE: once a process
            _WARNED_ONCE["float"] = True
            warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
                          "Consider using tensor.detach() first.", UserWarning, stacklevel=2)
        return float(self._scalar())

    def __int__(self) -> int:
        return int(self._scalar())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    __hash__ = object.__hash__

    # --- elementwise functions (exp, sin, relu…: generated from their records by `engine.registry`) ---------
    def _floating(self) -> "Tensor":
        """Integer and bool inputs of float-valued ops (exp, sqrt…) are computed as float32, as PyTorch."""
        return self if self._data.dtype.kind == "f" else Tensor._make(self._data.astype(np.float32))




# the warnings PyTorch gives once a process (TORCH_WARN_ONCE), by name, once given
_WARNED_ONCE: dict[str, bool] = {}
_TENSOR_TYPES = {Tensor}  # Tensor and its subclasses the engine makes (nn.Parameter adds itself)


def _fill_value(value, where: str):
    """A fill value as PyTorch accepts it: a number (or a one-element tensor), never text or objects."""
    if isinstance(value, Tensor):
        return value.item()
    if isinstance(value, (int, float, bool, np.number, np.bool_)):
        return value
    raise TypeError(f"{where}(): argument 'fill_value' must be Number, not {type(value).__name__}")


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
                nested_shape(data)
                raise
            if array.dtype == object:
                nested_shape(data)
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


from engine import xp_tensor as _xp_tensor  # noqa: E402,F401 - registers the Tensor namespace of engine.xp
