"""Conversions: to numbers, lists and numpy (`item`, `tolist`, `numpy`), and to other dtypes and devices
(`to`, `type`, `float`, `double`, `long`, `int`, `bool`)."""
from __future__ import annotations

import numpy as np

from engine import dtypes
from engine.dims import shape_arg
from engine.tensor import Tensor, _apply, _modes, guard_shape, new_leaf, tensor


class ConversionMethods:
    """Conversions. (attached to `Tensor` by `engine.registry`)"""

    def cpu(self) -> "Tensor":
        return self

    def type_as(self, other) -> "Tensor":
        """This tensor in `other`'s dtype (`to(other.dtype)`: itself when they match)."""
        return self.to(other.dtype)

    # new_*: factories that take this tensor's dtype unless told otherwise (fresh leaves, not on its graph)
    def new_zeros(self, *size, dtype=None, requires_grad=False, device=None):
        return self._new(size, 0, dtype, requires_grad)

    def new_ones(self, *size, dtype=None, requires_grad=False, device=None):
        return self._new(size, 1, dtype, requires_grad)

    def new_full(self, size, fill_value, *, dtype=None, requires_grad=False, device=None):
        return self._new((size,), fill_value, dtype, requires_grad)

    def new_empty(self, *size, dtype=None, requires_grad=False, device=None):
        return self._new(size, 0, dtype, requires_grad)

    def new_tensor(self, data, dtype=None, requires_grad=False, device=None):
        return tensor(data, dtype=dtypes.from_numpy(self._data.dtype) if dtype is None else dtype,
                      requires_grad=requires_grad)

    def _new(self, size, value, dtype, requires_grad):
        shape = shape_arg(size)
        guard_shape(shape)
        t = new_leaf(np.full(shape, value, dtype=self._data.dtype if dtype is None else dtypes.to_numpy(dtype)))
        return t.requires_grad_(True) if requires_grad else t

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
        """Without a dtype, the legacy type name ('torch.FloatTensor'); with one (or such a name), `to(dtype)`."""
        names = {f"torch.{v}Tensor": k for k, v in dtypes.SCALAR_TYPE_NAMES.items()}
        if dtype is None:
            return f"torch.{dtypes.SCALAR_TYPE_NAMES[self._data.dtype.name]}Tensor"
        if isinstance(dtype, str):
            if dtype not in names:
                raise ValueError(f"invalid type: '{dtype}'")
            dtype = dtypes.from_numpy(np.dtype(names[dtype]))
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
