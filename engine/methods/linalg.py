"""Matrix products: `Tensor.matmul` (`@`) built the way PyTorch's `_matmul_impl` builds it — dot, mv, mm, a
folded or batched product — and mm, addmm, mv, dot, bmm with PyTorch's checks."""
from __future__ import annotations

import math

import numpy as np

from engine import dtypes
from engine.ops import broadcast_shapes
from engine.tensor import Tensor, _apply, _as_operand, _tensor_arg


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
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {dtypes.SCALAR_TYPE_NAMES[da]} and "
                           f"{dtypes.SCALAR_TYPE_NAMES[db]}")
    if nb == 1:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {dtypes.SCALAR_TYPE_NAMES[db]}, "
                           f"{dtypes.SCALAR_TYPE_NAMES[da]}, and {dtypes.SCALAR_TYPE_NAMES[db]}")
    if nb == 2:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {dtypes.C_TYPE_NAMES[da]} != "
                           f"{dtypes.C_TYPE_NAMES[db]}")
    raise RuntimeError(f"expected scalar type {dtypes.SCALAR_TYPE_NAMES[da]} but found {dtypes.SCALAR_TYPE_NAMES[db]}")


class LinalgMethods:
    """Matrix products. (attached to `Tensor` by `engine.registry`)"""

    def __matmul__(self, other):
        return matmul(self, other)

    def __rmatmul__(self, other):
        if not isinstance(other, Tensor):
            raise TypeError(f"unsupported operand type(s) for @: '{type(other).__module__}.{type(other).__name__}' "
                            "and 'Tensor'".replace("builtins.", ""))
        return matmul(other, self)

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
                                   f"{dtypes.SCALAR_TYPE_NAMES[t._data.dtype.name]} and "
                                   f"{dtypes.SCALAR_TYPE_NAMES[mat2._data.dtype.name]}")
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

    def diag(self, diagonal=0):
        """`torch.diag`: a vector on the diagonal of a square matrix (DiagEmbedBackward0), or a matrix's diagonal as
        a new vector (PyTorch's node: DiagonalBackward0_copy)."""
        if self._data.ndim == 1:
            return _apply("diag_embed", (self,), offset=diagonal)
        if self._data.ndim == 2:
            return _apply("diag_copy", (self,), offset=diagonal)
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got {}D".format(self._data.ndim))

    def trace(self):
        if self._data.ndim != 2:
            raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self._data.ndim}")
        return _apply("trace", (self,))

    def outer(self, vec2):
        """`torch.outer(a, b)`: a.reshape(-1, 1) * b, as PyTorch computes it (MulBackward0)."""
        vec2 = _tensor_arg(vec2, "outer", "vec2")
        if self._data.ndim != 1 or vec2._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument self, but got {self._data.ndim}-D"
                               if self._data.ndim != 1 else
                               f"outer: Expected 1-D argument vec2, but got {vec2._data.ndim}-D")
        return self.reshape(-1, 1) * vec2

    ger = outer

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
            raise RuntimeError(f"expected scalar type {dtypes.SCALAR_TYPE_NAMES[self._data.dtype.name]} but found "
                               f"{dtypes.SCALAR_TYPE_NAMES[mat2._data.dtype.name]}")
        return _apply("bmm3", (self, mat2))
