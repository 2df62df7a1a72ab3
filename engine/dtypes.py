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


class device:  # noqa: N801 - PyTorch's spelling
    """`torch.device`: this engine computes on the CPU only."""

    __slots__ = ("type", "index")

    def __init__(self, type: str = "cpu", index: int | None = None) -> None:  # noqa: A002 - PyTorch's name
        if isinstance(type, device):
            type, index = type.type, type.index
        name, _, number = str(type).partition(":")
        if name != "cpu":
            raise RuntimeError(f"device {type!r}: this engine runs on the CPU only (device='cpu')")
        self.type, self.index = name, int(number) if number else index

    def __eq__(self, other) -> bool:
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __repr__(self) -> str:
        return f"device(type='{self.type}')" if self.index is None else \
            f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"


def check_device(d) -> None:
    """Accept a `device=` argument naming the CPU (a string or a `torch.device`), as the engine runs there."""
    if d is not None:
        device(d)


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


# --- type promotion: PyTorch's rules, in one place ------------------------------------------------
_BOOL, _INT64, _FLOAT32 = np.dtype(np.bool_), np.dtype(np.int64), np.dtype(np.float32)
_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2}


def promote_types(a: np.dtype | None, b: np.dtype | None) -> np.dtype | None:
    """`torch.promote_types` (None is "no operand yet"). numpy agrees except that a float dtype wins over
    any integer one (torch: float16 + int64 -> float16; numpy: float64)."""
    if a is None or a == b:
        return b
    if b is None:
        return a
    ka, kb = _CATEGORY[a.kind], _CATEGORY[b.kind]
    if ka != kb and 2 in (ka, kb):
        return a if ka > kb else b
    return np.promote_types(a, b)


def _combine_categories(higher: np.dtype | None, lower: np.dtype | None) -> np.dtype | None:
    """c10's combine_categories: a lower-priority operand only counts when its category is higher."""
    if higher is None:
        return lower
    if higher.kind == "f":
        return higher
    if higher == _BOOL or (lower is not None and lower.kind == "f"):
        return promote_types(higher, lower)
    return higher


_RESULT_TYPES: dict = {}


def result_type(*operands) -> np.dtype:
    """`torch.result_type` of arrays (tensors' data) and Python numbers; see `common_dtype`."""
    return common_dtype(operands)


def common_dtype(operands) -> np.dtype:
    """`torch.result_type` of a sequence of arrays (tensors' data) and Python numbers: dimensioned tensors first, then
    0-dim tensors, then Python numbers (a float number counts as the default dtype, float32), where a
    later group only matters if it is of a higher category (bool < integer < float).

    E.g. int32[n] * float64[] -> float64, float32[n] * float64[] -> float32, int32[n] * int64[] -> int32."""
    first = operands[0]
    if type(first) is np.ndarray:  # fast paths (the hot ones): operands that cannot change the dtype
        dtype = first.dtype
        if len(operands) == 1:
            return dtype
        if len(operands) == 2:
            other = operands[1]
            kind = type(other)
            if kind is np.ndarray and other.dtype == dtype or kind is float and dtype.kind == "f" or \
                    kind is int and dtype.kind in "iuf":
                return dtype
    key = tuple([(a.dtype, a.ndim == 0) if type(a) is np.ndarray else type(a) for a in operands])
    found = _RESULT_TYPES.get(key)
    if found is None:
        dim = zero = wrapped = None
        for k in key:
            if type(k) is tuple:
                if k[1]:
                    zero = promote_types(zero, k[0])
                else:
                    dim = promote_types(dim, k[0])
            elif k is not type(None):
                number = _BOOL if issubclass(k, (bool, np.bool_)) else _INT64 if issubclass(k, (int, np.integer)) \
                    else _FLOAT32
                wrapped = promote_types(wrapped, number)
        found = _RESULT_TYPES[key] = _combine_categories(dim, _combine_categories(zero, wrapped))
    return found


# PyTorch's scalar type names, and the C++ type names some of PyTorch's messages use ("expected m1 and m2 to have the same dtype, but got: float != double")
C_TYPE_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                 "uint8": "unsigned char", "bool": "bool", "float16": "c10::Half", "float32": "float",
                 "float64": "double"}
SCALAR_TYPE_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                      "bool": "Bool", "float16": "Half", "float32": "Float", "float64": "Double"}
