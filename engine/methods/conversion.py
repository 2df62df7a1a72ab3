"""Conversions: to numbers, lists and numpy (`item`, `tolist`, `numpy`), and to other dtypes and devices
(`to`, `type`, `float`, `double`, `long`, `int`, `bool`)."""
from __future__ import annotations

import numpy as np

from engine import dtypes
from engine.tensor import Tensor, _apply, _modes


class ConversionMethods:
    """Conversions. (attached to `Tensor` by `engine.registry`)"""

    def cpu(self) -> "Tensor":
        return self

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
