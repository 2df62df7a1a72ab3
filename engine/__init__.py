"""A small reverse-mode autograd engine with PyTorch's surface: `import engine as torch`.

Lesson snippets say `import torch` and run on this package; the names below are
the part of PyTorch it implements, with PyTorch's numbers, errors and printouts.
"""
from __future__ import annotations

from engine import autograd, func, nn, optim
from engine import dtypes as _dtypes
from engine import registry as _registry  # gives Tensor the methods its records name
from engine import state as _state
from engine.creation import (
    arange,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    zeros,
    zeros_like,
)
from engine.dtypes import Size, device, dtype, float16, float32, float64, int8, int16, int32, int64, uint8
from engine.dtypes import bool_ as bool  # noqa: A001 - torch.bool
from engine.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from engine.printing import set_printoptions
from engine.tensor import Tensor, tensor

float = float32  # noqa: A001 - torch.float
double = float64
half = float16
long = int64
int = int32  # noqa: A001 - torch.int
FloatTensor = Tensor


globals().update(_registry.FUNCTIONS)  # torch.exp, torch.sum…: from the op records (`engine.registry`)


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
    "Size", "Tensor", "FloatTensor", "arange", "autograd", "func", "optim", "is_anomaly_enabled", "bool", "enable_grad",
    "set_grad_enabled", "inference_mode", "is_inference_mode_enabled", "double", "dtype", "empty", "eye", "float",
    "float16", "float32", "float64", "from_numpy", "full", "full_like", "half", "int", "int8", "int16", "int32",
    "int64", "is_grad_enabled", "is_tensor", "linspace", "long", "manual_seed", "nn",
    "no_grad", "ones", "ones_like", "rand", "randint", "randn", "set_printoptions", "tensor", "uint8",
    "zeros", "zeros_like", "empty_like", "rand_like", "randn_like", "device", "randperm", "get_default_dtype", "result_type", "promote_types",
    *_registry.FUNCTIONS,
]
