"""A small reverse-mode autograd engine with PyTorch's surface: `import engine as torch`.

Lesson snippets say `import torch` and run on this package; the names below are
the part of PyTorch it implements, with PyTorch's numbers, errors and printouts.
"""
from __future__ import annotations

import numbers as _numbers

from engine import autograd, func, nn, optim
from engine import dtypes as _dtypes
from engine import state as _state
from engine.creation import (
    arange,
    empty,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    randint,
    randn,
    randperm,
    zeros,
    zeros_like,
)
from engine.derivatives import OPS as _OPS
from engine.dtypes import Size, device, dtype, float16, float32, float64, int8, int16, int32, int64, uint8
from engine.dtypes import bool_ as bool  # noqa: A001 - torch.bool
from engine.functional import jacobian, vjp
from engine.printing import set_printoptions
from engine.tensor import (
    Tensor,
    _run,
    cat,
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    matmul,
    no_grad,
    set_grad_enabled,
    stack,
    tensor,
    where,
)

float = float32  # noqa: A001 - torch.float
double = float64
half = float16
long = int64
int = int32  # noqa: A001 - torch.int
FloatTensor = Tensor


def _forward_to_method(name: str):
    method = getattr(Tensor, name)

    def function(input, *args, **kwargs):  # noqa: A002 - PyTorch's argument name
        if type(input) is Tensor:  # the common case, without looking the method up again
            return method(input, *args, **kwargs)
        if not isinstance(input, Tensor):  # PyTorch's error; never a getattr on an arbitrary object
            if name in _WRAPPED and args and isinstance(args[0], Tensor) and isinstance(input, _numbers.Number):
                return _run(_OPS[name], (input, args[0]), {})  # the number is a wrapped tensor operand
            if name in _REFLECTED and args and isinstance(args[0], Tensor) and isinstance(input, _numbers.Number):
                return getattr(args[0], _REFLECTED[name])(input, *args[1:], **kwargs)
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        return getattr(input, name)(*args, **kwargs)

    function.__name__ = name
    function.__doc__ = f"`torch.{name}(input, ...)`, the same as `input.{name}(...)`."
    return function


_FUNCTIONS = ("exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "abs", "clamp", "clip", "sum",
              "mean", "max", "min", "argmax", "argmin", "softmax", "log_softmax", "mm", "addmm", "mv", "dot", "pow",
              "add", "sub", "mul", "div", "neg", "square", "reciprocal", "transpose", "permute", "reshape", "t",
              "unsqueeze", "squeeze", "flatten", "clone", "detach", "numel", "maximum", "norm", "allclose",
              "equal", "is_floating_point", "prod", "var", "std", "log1p", "minimum", "sign", "logsumexp", "flip",
              "bmm", "masked_fill", "floor_divide", "remainder", "clamp_min", "clamp_max", "exp_", "abs_",
              "sqrt_", "square_", "relu_", "sigmoid_", "tanh_", "neg_", "all", "any", "eq", "ne", "gt", "ge", "lt",
              "le", "logical_not", "gather", "scatter", "scatter_add", "cumsum", "cumprod", "atan2", "index_add")
_WRAPPED = ("sub", "div")  # torch.sub(2, t) records SubBackward0, not 2 - t's RsubBackward1
# torch.add(2, t): a number first is allowed for these, and means the reflected operator
_REFLECTED = {"add": "__radd__", "sub": "__rsub__", "mul": "__rmul__", "div": "__rtruediv__", "pow": "__rpow__",
              "floor_divide": "__rfloordiv__", "remainder": "__rmod__"}
globals().update({name: _forward_to_method(name) for name in _FUNCTIONS})
del _forward_to_method  # a getattr gadget for any name: not left reachable in the package namespace


def is_anomaly_enabled() -> bool:
    """Whether `torch.autograd.set_detect_anomaly(True)` is in effect."""
    return _state.current().anomaly


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def get_default_dtype() -> dtype:
    return float32


def result_type(tensor1, tensor2) -> dtype:
    """`torch.result_type`: the dtype an arithmetic op of the two gives (PyTorch's promotion rules)."""
    arrays = [t._data if isinstance(t, Tensor) else t for t in (tensor1, tensor2)]
    return _dtypes.from_numpy(_dtypes.result_type(*arrays))


def promote_types(type1: dtype, type2: dtype) -> dtype:
    return _dtypes.from_numpy(_dtypes.promote_types(type1.numpy, type2.numpy))


__all__ = [
    "Size", "Tensor", "FloatTensor", "arange", "autograd", "func", "optim", "is_anomaly_enabled", "bool", "cat", "stack", "where", "enable_grad",
    "set_grad_enabled", "inference_mode", "is_inference_mode_enabled", "double", "dtype", "empty", "eye", "float",
    "float16", "float32", "float64", "from_numpy", "full", "full_like", "half", "int", "int8", "int16", "int32",
    "int64", "is_grad_enabled", "is_tensor", "jacobian", "linspace", "long", "manual_seed", "matmul", "nn",
    "no_grad", "ones", "ones_like", "rand", "randint", "randn", "set_printoptions", "tensor", "uint8", "vjp",
    "zeros", "zeros_like", "device", "randperm", "get_default_dtype", "result_type", "promote_types",
    *_FUNCTIONS,
]
