"""PyTorch's dtype objects and `torch.Size`, mapped onto numpy dtypes."""
from __future__ import annotations

import numpy as np


class dtype:  # noqa: N801 - PyTorch's spelling
    """A PyTorch dtype: prints as `torch.float32` and knows its numpy counterpart."""

    __slots__ = ("name", "numpy", "is_floating_point")

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'torch.dtype' instances")

    @classmethod
    def _define(cls, name: str, numpy_type) -> "dtype":
        d = object.__new__(cls)
        d.name, d.numpy = name, np.dtype(numpy_type)
        d.is_floating_point = d.numpy.kind == "f"
        return d

    @property
    def itemsize(self) -> int:
        return self.numpy.itemsize

    def __repr__(self) -> str:
        return f"torch.{self.name}"


float16 = dtype._define("float16", np.float16)
float32 = dtype._define("float32", np.float32)
float64 = dtype._define("float64", np.float64)
uint8 = dtype._define("uint8", np.uint8)
int8 = dtype._define("int8", np.int8)
int16 = dtype._define("int16", np.int16)
int32 = dtype._define("int32", np.int32)
int64 = dtype._define("int64", np.int64)
bool_ = dtype._define("bool", np.bool_)

ALL = (float16, float32, float64, uint8, int8, int16, int32, int64, bool_)
_BY_NUMPY = {d.numpy: d for d in ALL}


def from_numpy(np_dtype) -> dtype:
    """The PyTorch dtype of a numpy dtype (TypeError for ones PyTorch has no tensor of)."""
    try:
        return _BY_NUMPY[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).name}. The only supported types are: "
            "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool."
        ) from None


def to_numpy(d) -> np.dtype:
    """Accept a PyTorch dtype (or a Python type such as `float`) and give the numpy dtype."""
    if isinstance(d, dtype):
        return d.numpy
    if d is float:
        return float64.numpy
    if d is int:
        return int64.numpy
    if d is bool:
        return bool_.numpy
    raise TypeError(f"dtype must be a torch.dtype, not {type(d).__name__}")


class Size(tuple):
    """`torch.Size`: a tuple of ints that prints as `torch.Size([2, 3])`."""

    __slots__ = ()

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__
