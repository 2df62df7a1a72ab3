"""`Tensor`: a numpy array plus the autograd bookkeeping PyTorch learners see.

Every differentiable method is one line that names its entry in
`engine.derivatives.OPS`; `_apply` runs that entry's forward rule and, when a
gradient is needed, records a `Node` with what the backward rule needs.
"""
from __future__ import annotations

import warnings
from collections import namedtuple

import numpy as np

from engine import dtypes
from engine.derivatives import OPS, saved_tensors, variadic
from engine.graph import AccumulateGrad, BackwardCall, Node, active_recorders, sweep, topological
from engine.printing import format_tensor

_FLOAT32 = np.dtype(np.float32)
_FLOAT64 = np.dtype(np.float64)
_grad_enabled = True
_size_guard = None  # set by the snippet runner: called with a shape before anything that size is made


def set_size_guard(guard) -> None:
    """Install `guard(shape)` to vet every tensor shape before it is allocated (None removes it)."""
    global _size_guard
    _size_guard = guard


def guard_shape(shape) -> None:
    if _size_guard is not None:
        _size_guard(tuple(shape))


class no_grad:  # noqa: N801 - PyTorch's spelling
    """`with torch.no_grad():` — operations inside record no graph."""

    def __enter__(self):
        global _grad_enabled
        self._previous, _grad_enabled = _grad_enabled, False

    def __exit__(self, *exc):
        global _grad_enabled
        _grad_enabled = self._previous

    def __call__(self, fn):
        def wrapper(*args, **kwargs):
            with no_grad():
                return fn(*args, **kwargs)
        return wrapper


class set_grad_enabled(no_grad):  # noqa: N801 - PyTorch's spelling
    """`torch.set_grad_enabled(mode)`: switches recording now, and back at the end of a `with` block."""

    def __init__(self, mode: bool) -> None:
        global _grad_enabled
        self._previous, _grad_enabled = _grad_enabled, bool(mode)

    def __enter__(self):
        pass


class enable_grad(no_grad):  # noqa: N801
    """`with torch.enable_grad():` — record again inside a `no_grad` block."""

    def __enter__(self):
        global _grad_enabled
        self._previous, _grad_enabled = _grad_enabled, True


def is_grad_enabled() -> bool:
    return _grad_enabled


def _result_dtype(arrays, out_dtype):
    """PyTorch's promotion on top of numpy's: float64 only from a float64 tensor, ints divide to float32."""
    if out_dtype == _FLOAT64:
        tensors = [a for a in arrays if type(a) is np.ndarray]
        dimmed = [a for a in tensors if a.ndim] or tensors
        if not any(a.dtype == _FLOAT64 for a in dimmed):
            return _FLOAT32
    return out_dtype


def _apply(name: str, inputs: tuple, /, **attrs) -> "Tensor":
    """Run op `name` forward on `inputs` (Tensors or Python numbers) and record its node if needed."""
    return _run(OPS[name], inputs, attrs)


def _run(op, inputs: tuple, attrs: dict) -> "Tensor":
    arrays = [t._data if type(t) is Tensor else t for t in inputs]
    out = op.forward(*arrays, **attrs)
    if type(out) is not np.ndarray:
        out = np.asarray(out)
    # numpy makes float64 where PyTorch keeps float32; an explicit cast (`dtype` attr) keeps its dtype
    if out.dtype == _FLOAT64 and "dtype" not in attrs:
        out = out.astype(_result_dtype(arrays, out.dtype), copy=False)
    result = Tensor._make(out)
    if not _grad_enabled:
        return result
    parents, wanted = [], 0
    for i, t in enumerate(inputs[: len(op.vjp)]):
        if type(t) is Tensor and t._requires_grad:
            parents.append(t._grad_fn or t._grad_edge())
            wanted |= 1 << i
        else:
            parents.append(None)
    if wanted:
        result._requires_grad = True
        node = result._grad_fn = Node(op, arrays, attrs, out, parents)
        if op.saves:
            _save_versions(node, op, inputs, wanted, result)
    return result


def _save_versions(node, op, inputs, wanted: int, result) -> None:
    """Remember the versions of the tensors this node's rules will read (for the in-place check)."""
    positions, saves_result = saved_tensors(op, wanted)
    versions = [(inputs[i], inputs[i]._version, False) for i in positions if type(inputs[i]) is Tensor]
    if saves_result:
        versions.append((result, 0, True))
    node.versions = versions


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


def _broadcast(a: "Tensor", b) -> None:
    """Raise PyTorch's message when shapes do not broadcast, and vet the result's size."""
    if type(b) is not Tensor or a._data.shape == b._data.shape:
        if _size_guard is not None:
            _size_guard(a._data.shape)
        return
    sa, sb = a._data.shape, b._data.shape
    for i in range(1, min(len(sa), len(sb)) + 1):
        if sa[-i] != sb[-i] and sa[-i] != 1 and sb[-i] != 1:
            dim = max(len(sa), len(sb)) - i
            raise RuntimeError(f"The size of tensor a ({sa[-i]}) must match the size of tensor b ({sb[-i]}) "
                               f"at non-singleton dimension {dim}")
    guard_shape(np.broadcast_shapes(sa, sb))


_NO_ATTRS: dict = {}


def _binary(key: str, a: "Tensor", b) -> "Tensor":
    """A binary op of a tensor and a tensor or a Python number (the hot path: checks kept inline)."""
    if type(b) is not Tensor and type(b) is not float and type(b) is not int:
        b = _as_operand(b)
    _broadcast(a, b)
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
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    return tuple(_normalize_dim(d, ndim) for d in dims)


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

_SCALAR_TYPE_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                      "bool": "Bool", "float16": "Half", "float32": "Float", "float64": "Double"}
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."


class Tensor:
    """A multi-dimensional array that can record the operations applied to it."""

    __slots__ = ("_data", "_requires_grad", "_grad", "_grad_fn", "_accumulator", "_version", "__weakref__")
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
        self._version = 0

    @classmethod
    def _make(cls, data: np.ndarray, requires_grad: bool = False) -> "Tensor":
        t = object.__new__(cls)
        t._data, t._requires_grad, t._grad, t._grad_fn, t._accumulator = data, requires_grad, None, None, None
        t._version = 0
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
            raise RuntimeError("assigned grad has data of a different size")
        self._grad = value

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
        """Add a cotangent into .grad (in place, as PyTorch does, so references see the sum)."""
        if self._grad is None:
            self._grad = Tensor._make(np.array(g, dtype=self._data.dtype))
        else:
            self._grad._data = self._grad._data + g

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
        """Compute the gradient of this tensor w.r.t. the graph leaves, adding into their `.grad`."""
        if create_graph:
            raise NotImplementedError("create_graph=True (higher-order gradients) is not supported by this engine")
        if not self._requires_grad:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
        if gradient is None:
            if self._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            seed = np.ones(self._data.shape, dtype=self._data.dtype)
        else:
            gradient = gradient if isinstance(gradient, Tensor) else tensor(gradient)
            if gradient._data.shape != self._data.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[0] has a shape of {dtypes.Size(gradient._data.shape)!r} and "
                    f"output[0] has a shape of {dtypes.Size(self._data.shape)!r}.")
            seed = gradient._data.astype(self._data.dtype, copy=False)
        recorders = active_recorders()
        call = None
        if recorders:
            edge = self._grad_edge()
            call = BackwardCall(self, None if gradient is None else gradient._data.copy(), seed,
                                nodes=topological(edge))
            for recorder in recorders:
                recorder.append(call)
        leaves = sweep(self._grad_edge(), seed, retain_graph=bool(retain_graph))
        for acc, g in leaves.items():
            leaf = acc.variable
            if call is not None:
                call.leaves.append(leaf)
                call.grads_before.append(None if leaf._grad is None else leaf._grad._data.copy())
            leaf._accumulate(g)
            if call is not None:
                call.grads_after.append(leaf._grad._data.copy())

    def detach(self) -> "Tensor":
        return Tensor._make(self._data)

    def detach_(self) -> "Tensor":
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
    def device(self) -> str:
        return "cpu"

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
                             grad_fn=None if self._grad_fn is None else self._grad_fn.name())

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
        return (self[i] for i in range(self._data.shape[0]))

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()))

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

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
        return matmul(_as_operand(other), self)

    def pow(self, exponent):
        if isinstance(exponent, Tensor):
            return _binary("pow_tensor", self, exponent)
        return _apply("pow", (self,), exponent=_as_operand(exponent))

    def add(self, other, alpha=1):
        return self + (other * alpha if alpha != 1 else other)

    def sub(self, other, alpha=1):
        return self - (other * alpha if alpha != 1 else other)

    def mul(self, other):
        return self * other

    def div(self, other):
        return self / other

    def neg(self):
        return -self

    def square(self):
        return self.pow(2)

    def reciprocal(self):
        return _apply("reciprocal", (self,))

    # comparisons give bool tensors and never record a graph
    def _compare(self, other, fn):
        other = _as_operand(other)
        _broadcast(self, other)
        other = other._data if isinstance(other, Tensor) else other
        return Tensor._make(np.asarray(fn(self._data, other)))

    def __eq__(self, other):
        return self._compare(other, np.equal)

    def __ne__(self, other):
        return self._compare(other, np.not_equal)

    def __lt__(self, other):
        return self._compare(other, np.less)

    def __le__(self, other):
        return self._compare(other, np.less_equal)

    def __gt__(self, other):
        return self._compare(other, np.greater)

    def __ge__(self, other):
        return self._compare(other, np.greater_equal)

    def all(self):
        return Tensor._make(np.asarray(np.all(self._data)))

    def any(self):
        return Tensor._make(np.asarray(np.any(self._data)))

    def eq(self, other):
        return self == other

    def allclose(self, other, rtol=1e-05, atol=1e-08) -> bool:
        return bool(np.allclose(self._data, _as_operand(other)._data, rtol=rtol, atol=atol))

    def equal(self, other) -> bool:
        return self._data.shape == other._data.shape and bool(np.array_equal(self._data, other._data))

    # --- elementwise functions ----------------------------------------------------------------
    def exp(self):
        return _apply("exp", (self,))

    def log(self):
        return _apply("log", (self,))

    def sqrt(self):
        return _apply("sqrt", (self,))

    def sin(self):
        return _apply("sin", (self,))

    def cos(self):
        return _apply("cos", (self,))

    def tanh(self):
        return _apply("tanh", (self,))

    def sigmoid(self):
        return _apply("sigmoid", (self,))

    def relu(self):
        return _apply("relu", (self,))

    def abs(self):
        return _apply("abs", (self,))

    def clamp(self, min=None, max=None):  # noqa: A002 - PyTorch's argument names
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        return _apply("clamp", (self,), low=min, high=max)

    clip = clamp

    def clamp_min(self, min):  # noqa: A002
        return self.clamp(min=min)

    def clamp_max(self, max):  # noqa: A002
        return self.clamp(max=max)

    def maximum(self, other):
        return _binary("maximum", self, other)

    # --- reductions ---------------------------------------------------------------------------
    def _reduce(self, key: str, dim, keepdim: bool, dtype_message: str | None = None):
        if dtype_message and self._data.dtype.kind != "f":
            raise RuntimeError(dtype_message.format(_SCALAR_TYPE_NAMES[self._data.dtype.name]))
        if dim is None:
            return _apply(key, (self,))
        return _apply(key + "_dim", (self,), dims=_dims(dim, self._data.ndim), keepdim=keepdim)

    def sum(self, dim=None, keepdim=False, dtype=None):
        return self._reduce("sum", dim, keepdim)

    def mean(self, dim=None, keepdim=False, dtype=None):
        return self._reduce("mean", dim, keepdim, "mean(): could not infer output dtype. Input dtype must be "
                                                   "either a floating point or complex dtype. Got: {}")

    def _extremum(self, key: str, dim, keepdim: bool, result_type, other=None):
        if isinstance(dim, Tensor):
            other, dim = dim, None
        if other is not None:
            return _binary("maximum", self, other) if key == "max" else -_binary("maximum", -self, -other)
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
        if dim is None:
            return Tensor._make(np.asarray(np.argmax(self._data), dtype=np.int64))
        return self.max(dim, keepdim).indices

    def argmin(self, dim=None, keepdim=False):
        if dim is None:
            return Tensor._make(np.asarray(np.argmin(self._data), dtype=np.int64))
        return self.min(dim, keepdim).indices

    def softmax(self, dim):
        return _apply("softmax", (self,), dim=_normalize_dim(dim, self._data.ndim))

    def log_softmax(self, dim):
        return _apply("log_softmax", (self,), dim=_normalize_dim(dim, self._data.ndim))

    def norm(self):
        return _apply("norm", (self,))

    def prod(self):
        return _apply("prod", (self,))

    def var(self, correction=1, unbiased=None):
        return _apply("var", (self,), correction=_correction(correction, unbiased))

    def std(self, correction=1, unbiased=None):
        return _apply("std", (self,), correction=_correction(correction, unbiased))

    def log1p(self):
        return _apply("log1p", (self,))

    # --- products -----------------------------------------------------------------------------
    def matmul(self, other):
        return matmul(self, other)

    def mm(self, other):
        if self._data.ndim != 2:
            raise RuntimeError("self must be a matrix")
        if other._data.ndim != 2:
            raise RuntimeError("mat2 must be a matrix")
        return matmul(self, other)

    def mv(self, vec):
        return matmul(self, vec)

    def dot(self, other):
        return matmul(self, other)

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

    def flatten(self):
        return self if self._data.ndim == 1 else self.reshape(-1)

    def unsqueeze(self, dim):
        d = _normalize_dim(dim, self._data.ndim + 1)
        return _apply("unsqueeze", (self,), dim=d)

    def squeeze(self, dim=None):
        if dim is None:
            return _apply("squeeze", (self,))
        d = _normalize_dim(dim, self._data.ndim)
        if self._data.ndim and self._data.shape[d] != 1:
            return _apply("view", (self,), shape=self._data.shape)
        return _apply("squeeze_dim", (self,), dim=d)

    def expand(self, *shape):
        shape = list(_shape_arg(shape))
        lead = len(shape) - self._data.ndim
        for i, s in enumerate(self._data.shape):
            if shape[lead + i] == -1:
                shape[lead + i] = s
        guard_shape(shape)
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
        self._check_inplace()
        self._inplace(_apply("copy_slices", (self, _as_operand(value)), key=_full_key(key, self._data.ndim)))

    # --- dtype conversion -----------------------------------------------------------------------
    def to(self, dtype=None, *args, **kwargs):
        if isinstance(dtype, (str,)) or dtype is None:  # a device such as "cpu"
            return self
        return self._convert(dtypes.to_numpy(dtype))

    def type(self, dtype=None):
        return self.to(dtype)

    def _convert(self, np_dtype):
        if self._data.dtype == np_dtype:
            return self
        if self._requires_grad and np_dtype.kind == "f":
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
        """Make this tensor hold `result`: same object, new value, and (if recorded) the new grad_fn.

        Without a graph the array is overwritten in place, so views such as `x.data` see the change;
        with one it is replaced, so the nodes that saved the old value keep it (PyTorch saves a copy too)."""
        if result._data.shape != self._data.shape:
            raise RuntimeError(f"output with shape [{', '.join(map(str, self._data.shape))}] doesn't match the "
                               f"broadcast shape [{', '.join(map(str, result._data.shape))}]")
        self._version += 1
        node = result._grad_fn
        if node is None:
            np.copyto(self._data, result._data, casting="unsafe")
            return self
        self._data = result._data.astype(self._data.dtype, copy=False)
        self._grad_fn, self._requires_grad = node, True
        # The node kept this tensor's old value (PyTorch saves `original_self` too), and its output is now
        # this tensor, at its new version.
        node.versions = tuple((self, self._version, True) if t is result else (t, v, is_output)
                              for t, v, is_output in node.versions if t is not self)
        return self

    def _check_inplace(self) -> None:
        if self._requires_grad and self._grad_fn is None and _grad_enabled:
            raise RuntimeError(LEAF_INPLACE)

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
            self._version += 1
            return self
        return self._inplace(self * 0)

    def fill_(self, value):
        self._check_inplace()
        value = _fill_value(value, "fill_")
        self._data[...] = value
        self._version += 1
        return self

    __iadd__ = add_
    __isub__ = sub_
    __imul__ = mul_
    __itruediv__ = div_


def _fill_value(value, where: str):
    """A fill value as PyTorch accepts it: a number (or a one-element tensor), never text or objects."""
    if isinstance(value, Tensor):
        return value.item()
    if isinstance(value, (int, float, bool, np.number, np.bool_)):
        return value
    raise TypeError(f"{where}(): argument 'fill_value' must be Number, not {type(value).__name__}")


def _correction(correction, unbiased) -> int:
    return int(unbiased) if unbiased is not None else correction


def cat(tensors, dim=0) -> Tensor:
    """`torch.cat`: join tensors along an existing dim."""
    tensors = [_as_operand(t) for t in tensors]
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
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
    a = input if isinstance(input, Tensor) else Tensor._make(np.asarray(input, dtype=np.float32))
    cond = np.asarray(condition._data if isinstance(condition, Tensor) else condition, dtype=bool)
    guard_shape(np.broadcast_shapes(cond.shape, a._data.shape, np.shape(other._data if isinstance(other, Tensor)
                                                                        else other)))
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


def _index(t: Tensor, key) -> Tensor:
    """Indexing as PyTorch records it: a chain of select / slice / unsqueeze nodes, or one index node."""
    lone_slice = isinstance(key, slice)  # PyTorch records x[:] as a slice, but skips full slices in x[:, 1:]
    key = key if isinstance(key, tuple) else (key,)
    if any(isinstance(k, (list, np.ndarray, Tensor)) for k in key):
        np_key = tuple(np.asarray(k._data if isinstance(k, Tensor) else k) for k in key)
        np_key = tuple(np.nonzero(k)[0] if k.dtype == bool else k for k in np_key)
        try:
            t._data[np_key]
        except IndexError as err:
            raise IndexError(str(err)) from None
        return _apply("index", (t,), key=np_key + (slice(None),) * (t._data.ndim - len(np_key)))
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
                             "are valid indices")
    if out is t:
        return _apply("alias", (t,))
    return out


def matmul(a, b) -> Tensor:
    """`torch.matmul`: dot, mv, mm or batched, by the operands' ranks, with PyTorch's errors."""
    a, b = _as_operand(a), _as_operand(b)
    na, nb = a._data.ndim, b._data.ndim
    if na == 0 or nb == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {na}D and {nb}D")
    sa, sb = a._data.shape, b._data.shape
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
        guard_shape((sa[0], sb[1]))
        return _apply("mm", (a, b))
    if na == 1:
        return _apply("squeeze_matmul", (matmul(a.unsqueeze(0), b),), dim=-2)
    if nb == 1:
        return _apply("squeeze_matmul", (matmul(a, b.unsqueeze(-1)),), dim=-1)
    if sa[-1] != sb[-2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{sb[0] if nb > 2 else 1}, {sa[-1]}] but got: [{sb[0] if nb > 2 else 1}, {sb[-2]}].")
    guard_shape(np.broadcast_shapes(sa[:-2], sb[:-2]) + (sa[-2], sb[-1]))
    return _apply("bmm", (a, b))


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


def _to_array(data, np_dtype=None) -> np.ndarray:
    """Turn Python data (numbers, nested lists, Tensors, numpy arrays) into an array with PyTorch's dtypes."""
    if isinstance(data, Tensor):
        array = data._data
    elif isinstance(data, np.ndarray):
        array = data
    else:
        if isinstance(data, (list, tuple)):
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


def tensor(data, dtype=None, requires_grad=False, device=None) -> Tensor:
    """`torch.tensor`: a new leaf tensor copied from `data`."""
    t = Tensor._make(_to_array(data, None if dtype is None else dtypes.to_numpy(dtype)))
    if requires_grad:
        if t._data.dtype.kind != "f":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t._requires_grad = True
    return t
