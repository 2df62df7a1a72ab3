"""The small array namespace that the derivative rules are written against.

Every function here accepts either a float numpy array (numbers) or a numpy
object array whose elements are sympy expressions (symbols). That is what lets
`engine.ops` state each rule once and have the explanation layer run
the very same rules to get symbolic Jacobians.

Branch decisions (is x > 0? which element is the max?) cannot be made on a bare
symbol, so for object arrays they are taken at the point being explained: the
numeric values of the symbols, set with `at_point`.
"""
from __future__ import annotations

import contextlib
import contextvars
import math
from collections.abc import Iterator, Mapping

import numpy as np

_point: contextvars.ContextVar[Mapping] = contextvars.ContextVar("xp_point", default={})

# The third kind of array a rule may receive: a Tensor (`create_graph=True`). Then every function below
# hands the work to the Tensor namespace (`engine.xp_tensor`), whose functions are recorded Tensor ops,
# so a rule run on Tensors records the backward pass itself as a graph. Registered by `engine.tensor`.
_Tensor: type | None = None
tensors = None  # the Tensor namespace module


def use_tensor_namespace(tensor_type: type, namespace) -> None:
    global _Tensor, tensors
    _Tensor, tensors = tensor_type, namespace


def is_tensor(a) -> bool:
    return type(a) is not np.ndarray and _Tensor is not None and isinstance(a, _Tensor)


def _any_tensor(*args) -> bool:
    return _Tensor is not None and any(type(a) is not np.ndarray and isinstance(a, _Tensor) for a in args)


@contextlib.contextmanager
def at_point(values: Mapping) -> Iterator[None]:
    """Evaluate branch decisions of symbolic arrays with these symbol values."""
    token = _point.set(values)
    try:
        yield
    finally:
        _point.reset(token)


def symbolic(a) -> bool:
    return isinstance(a, np.ndarray) and a.dtype == object


def numeric(a) -> np.ndarray:
    """The float value of an array (object arrays are evaluated at the current point; a Tensor gives its
    values, a constant for the graph)."""
    if is_tensor(a):
        return a._data
    if not symbolic(a):
        return a
    values = _point.get()
    return np.vectorize(lambda e: float(e.xreplace(values)) if hasattr(e, "xreplace") else float(e),
                        otypes=[np.float64])(a)


def _sympy_elementwise(name: str):
    def apply(a):
        import sympy

        fn = getattr(sympy, name)
        # strict: an element that is a str is refused, never parsed (sympify of a str runs eval)
        return np.frompyfunc(lambda e: fn(sympy.sympify(e, strict=True)), 1, 1)(a)

    return apply


_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def _unary(numpy_fn, sympy_name: str, widen: bool = True):
    """An elementwise function; float32 goes through float64 so results are correctly rounded
    (numpy's float32 transcendental kernels can be one unit off where PyTorch's are not)."""
    sym = _sympy_elementwise(sympy_name)

    method = sympy_name.lower()

    def fn(a):
        if type(a) is not np.ndarray and is_tensor(a):
            return getattr(a, method)()
        kind = getattr(a, "dtype", None)
        if kind is None:  # one sympy expression: a full reduction's symbolic result (std is sqrt of var's)
            return sym(np.asarray(a, dtype=object))
        if kind is _F64:  # the common case first (dtype identity: numpy's built-in dtypes are singletons)
            return numpy_fn(a)
        if widen and kind == _F32:
            return numpy_fn(a.astype(_F64)).astype(_F32)
        if kind == object:
            return sym(a)
        return numpy_fn(a)

    fn.__name__ = sympy_name.lower()
    return fn


exp = _unary(np.exp, "exp")
log = _unary(np.log, "log")
sqrt = _unary(np.sqrt, "sqrt", widen=False)
sin = _unary(np.sin, "sin")
cos = _unary(np.cos, "cos")
tanh = _unary(np.tanh, "tanh")
abs = _unary(np.abs, "Abs", widen=False)  # noqa: A001 - mirrors numpy's name
tan = _unary(np.tan, "tan")
asin = _unary(np.arcsin, "asin")
acos = _unary(np.arccos, "acos")
atan = _unary(np.arctan, "atan")
sinh = _unary(np.sinh, "sinh")
cosh = _unary(np.cosh, "cosh")
expm1 = _unary(np.expm1, "expm1")
exp2 = _unary(np.exp2, "exp2")
erf = _unary(lambda a: np.asarray(np.frompyfunc(math.erf, 1, 1)(a), dtype=np.float64), "erf")  # (numpy has none)


def one_minus(a):
    """1 - a (tanh's and sigmoid's backward), the 1 in a's own dtype: numpy converts a Python number on every call,
    which costs an elementwise op on a small tensor more than the subtraction itself."""
    if type(a) is np.ndarray and a.dtype.kind == "f":
        return _ONES[a.dtype] - a
    return 1 - a


_ONES = {dtype: np.ones((), dtype) for dtype in map(np.dtype, (np.float16, np.float32, np.float64))}


def factor(mask, a):
    """A boolean mask as a 0/1 factor in a's dtype, for a rule PyTorch itself writes as a product with its mask
    (norm(inf)); for a Tensor, a Tensor that records nothing (masks are constants)."""
    if is_tensor(a):
        return tensors.constant(mask.astype(a._data.dtype))
    return mask.astype(np.float64 if symbolic(a) else a.dtype)


def sign(a):
    """+1, 0 or -1; decided at the point for symbols."""
    if is_tensor(a):
        return tensors.constant(sign(a._data))
    value = numeric(a)
    signs = np.sign(value)
    if value.dtype.kind == "f":
        signs = np.where(np.isnan(value), 0, signs)  # PyTorch: sign(nan) is 0
    return signs.astype(a.dtype if not symbolic(a) else np.float64)


# Branch decisions are boolean masks, and a rule keeps or drops its gradient with `select`, as PyTorch's kernels
# do (`where(mask, grad, 0)`): a product with a 0/1 mask would give -0 where a negative gradient is dropped.
def greater(a, b) -> np.ndarray:
    """Where a > b (decided at the point for symbols)."""
    return numeric(a) > numeric(b)


def between(a, low, high) -> np.ndarray:
    """Where low <= a <= high (a bound of None is open)."""
    value = numeric(a)
    mask = np.ones(value.shape, dtype=bool)
    if low is not None:
        mask &= value >= low
    if high is not None:
        mask &= value <= high
    return mask


def equal(a, b, nan_equal: bool = False) -> np.ndarray:
    """Where a == b (or both are nan, with nan_equal); decided at the point for symbols."""
    mask = numeric(a) == numeric(b)
    if nan_equal:
        mask = mask | (np.isnan(numeric(a)) & np.isnan(numeric(b)))
    return mask


def select(mask: np.ndarray, g, other=0):
    """`g` where the mask holds, else `other` (+0 by default): PyTorch's `where(mask, grad, 0)`."""
    return where(mask, g, other)


def sigmoid(a):
    if is_tensor(a):
        return a.sigmoid()
    return 1 / (1 + exp(-a))


def scale(a, number):
    """a times a Python number, as a derivative rule's Tensor-by-Scalar product: on Tensors the node is
    PyTorch's MulBackward1 (pow's `exponent * self.pow(exponent - 1)`), not the MulBackward0 of `x * 3`."""
    if is_tensor(a):
        return tensors.apply("mul_scalar", (a,), {"other": number})
    return number * a


def divide_or_zero(a, b):
    """a / b, with 0 where b is 0 (PyTorch's masked_fill for the norm's gradient at the origin)."""
    if _any_tensor(a, b):
        return tensors.divide_or_zero(a, b)
    if symbolic(a) or symbolic(b):
        return a / b
    out = np.zeros(np.broadcast_shapes(np.shape(a), np.shape(b)), dtype=np.result_type(a, b))
    return np.divide(a, b, out=out, where=np.asarray(b) != 0)


def relu(a):
    """max(a, 0) as PyTorch computes it: negatives become +0, while -0 and nan pass through."""
    return np.where(numeric(a) < 0, 0, a)


def atan2(a, b):
    """The angle of the point (b, a), elementwise; float32 through float64 (correctly rounded, as PyTorch's)."""
    if symbolic(a) or symbolic(b):
        import sympy

        return np.frompyfunc(lambda y, x: sympy.atan2(sympy.sympify(y, strict=True), sympy.sympify(x, strict=True)),
                             2, 1)(a, b)
    return np.arctan2(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))


def maximum(a, b):
    return np.where(numeric(a) >= numeric(b), a, b) if symbolic(a) else np.maximum(a, b)


def minimum(a, b):
    return np.where(numeric(a) <= numeric(b), a, b) if symbolic(a) else np.minimum(a, b)


def clip(a, low, high):
    if is_tensor(a):
        return a.clamp(low, high)
    if not symbolic(a):
        return np.clip(a, low, high)
    out = a
    if low is not None:
        out = np.where(numeric(out) < low, low, out)
    if high is not None:
        out = np.where(numeric(out) > high, high, out)
    return out


def argmax(a, axis):
    return np.argmax(numeric(a), axis=axis)


def argmin(a, axis):
    return np.argmin(numeric(a), axis=axis)


def amax(a, axis=None, keepdims=False):
    if not symbolic(a):
        return np.max(a, axis=axis, keepdims=keepdims)
    return _take_arg(a, argmax, axis, keepdims)


def amin(a, axis=None, keepdims=False):
    if not symbolic(a):
        return np.min(a, axis=axis, keepdims=keepdims)
    return _take_arg(a, argmin, axis, keepdims)


def _take_arg(a, arg, axis, keepdims):
    if axis is None:
        flat = a.reshape(-1)
        return np.array(flat[arg(flat, 0)], dtype=object)
    idx = np.expand_dims(arg(a, axis), axis)
    out = np.take_along_axis(a, idx, axis)
    return out if keepdims else np.squeeze(out, axis)


def logsumexp(a, axis):
    """log(sum(exp(a))) along axis, kept as a dimension; numerically stable for numbers."""
    if symbolic(a):
        return log(np.sum(exp(a), axis=axis, keepdims=True))
    m = np.max(a, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)  # all -inf (or an inf) along axis: no shift
    return m + np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True))


def softmax(a, axis):
    if symbolic(a):
        e = exp(a)
    else:
        e = np.exp(a - np.max(a, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def zeros(shape, like):
    if is_tensor(like):
        return tensors.constant(np.zeros(shape, dtype=like._data.dtype))
    return np.zeros(shape, dtype=like.dtype)


def ndim(a) -> int:
    return a.ndim if type(a) is np.ndarray or is_tensor(a) else np.ndim(a)


def size(a) -> int:
    return a.numel() if is_tensor(a) else int(np.size(a))


def batch_shape(g, out) -> tuple[int, ...]:
    """The leading batch axes of a cotangent (empty for a plain backward)."""
    return tuple(g.shape[: g.ndim - ndim(out)])


def expand_to(g, out, shape):
    """Broadcast a cotangent of a reduction's output back over the input's shape (batch axes stay first)."""
    if is_tensor(g):
        return tensors.expand_to(g, out, shape)
    batch = batch_shape(g, out)
    missing = len(shape) - np.ndim(out)
    if batch and missing:
        g = g.reshape(batch + (1,) * missing + g.shape[len(batch):])
    return np.broadcast_to(g, batch + tuple(shape))


def sum_to(g, shape, nbatch: int):
    """Sum a cotangent down to an input's shape, undoing broadcasting (batch axes kept)."""
    shape = tuple(shape)
    if tuple(g.shape[nbatch:]) == shape:
        return g
    if is_tensor(g):
        return tensors.sum_to(g, shape)
    lead = g.ndim - nbatch - len(shape)
    if lead:
        g = g.sum(axis=tuple(range(nbatch, nbatch + lead)))
    axes = tuple(nbatch + i for i, n in enumerate(shape) if n == 1 and g.shape[nbatch + i] != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g


# --- numpy's array functions, as the rules call them: numpy for arrays, recorded ops for Tensors ---------
def where(condition, a, b):
    if _any_tensor(a, b):
        return tensors.where(numeric(condition), a, b)
    return np.where(condition, a, b)


def sum(a, axis=None, keepdims=False):  # noqa: A001 - numpy's name
    if is_tensor(a):
        return tensors.sum(a, axis, keepdims)
    return np.sum(a, axis=axis, keepdims=keepdims)


def mean(a, axis=None, keepdims=False):
    if is_tensor(a):
        return tensors.mean(a, axis, keepdims)
    return np.mean(a, axis=axis, keepdims=keepdims)


def expand_dims(a, axis):
    if is_tensor(a):
        return tensors.expand_dims(a, axis)
    return np.expand_dims(a, axis)


def squeeze(a, axis=None):
    if is_tensor(a):
        return a.squeeze() if axis is None else tensors.squeeze(a, axis)
    return np.squeeze(a, axis)


def matmul(a, b):
    """a @ b, batched as numpy's. A product that adds a single term per element (an outer product, as a gradient of
    a one-row batch is) is that term, as PyTorch's mm gives it: 0 * -x is -0, where a BLAS sum would add it to +0."""
    if (type(a) is np.ndarray and type(b) is np.ndarray and a.ndim > 1 and b.ndim > 1
            and a.shape[-1] == 1 == b.shape[-2]):
        return a * b  # (…, m, 1) * (…, 1, n): broadcasting gives each product once
    return a @ b


def swapaxes(a, axis1, axis2):
    if is_tensor(a):
        return a.transpose(axis1, axis2)
    return np.swapaxes(a, axis1, axis2)


def moveaxis(a, source, destination):
    if is_tensor(a):
        return tensors.moveaxis(a, source, destination)
    return np.moveaxis(a, source, destination)


def flip(a, axes):
    if is_tensor(a):
        return a.flip(*axes)
    return np.flip(a, axes)


def cumsum(a, axis):
    if is_tensor(a):
        return a.cumsum(axis)
    return np.cumsum(a, axis=axis)


def cumprod(a, axis):
    if is_tensor(a):
        return a.cumprod(axis)
    return np.cumprod(a, axis=axis)


def concatenate(arrays, axis):
    if _any_tensor(*arrays):
        return tensors.cat(arrays, axis)
    return np.concatenate(arrays, axis=axis)


def take(a, index, axis):
    if is_tensor(a):
        return tensors.take(a, index, axis)
    return np.take(a, index, axis=axis)


def astype(a, dtype):
    if is_tensor(a):  # a rule's `a.dtype` is then the engine's dtype, which holds numpy's
        return a._convert(np.dtype(getattr(dtype, "numpy", dtype)))
    return a.astype(dtype)
