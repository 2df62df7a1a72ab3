"""Matrix products: dot, mv, mm, bmm, addmm (`Tensor.matmul` picks one of them, `engine.tensor`).
"""
from __future__ import annotations

import numpy as np

from engine import xp
from engine.ops.record import PRODUCT_SHAPE, PROMOTE, names, op


def mT(a):
    return xp.swapaxes(a, -1, -2)


# --- products ---------------------------------------------------------------------------------
op("mm", "MmBackward0", ["self", "mat2"], xp.matmul,
   {"self": ("grad.mm(mat2.t())", lambda g, out, a, b: xp.matmul(g, mT(b))),
    "mat2": ("self.t().mm(grad)", lambda g, out, a, b: xp.matmul(mT(a), g))}, saves={"self": ["mat2"], "mat2": ["self"]},
   shape=PRODUCT_SHAPE, names=names("mm"))
def _addmm(s, a, b, beta, alpha):
    """beta * self + alpha * (mat1 @ mat2); with beta == 0 self is not read (its nan and inf do not show)."""
    product = xp.matmul(a, b) if alpha == 1 else xp.matmul(a, b) * alpha
    return product if beta == 0 else product + (s if beta == 1 else s * beta)


def _scaled(g, factor):
    return g if factor == 1 else g * factor


op("addmm", "AddmmBackward0", ["self", "mat1", "mat2"], _addmm,
   {"self": ("maybe_multiply(grad, beta)", lambda g, out, s, a, b, beta, alpha: _scaled(g, beta)),
    "mat1": ("mm_mat1_backward(grad, mat2, alpha): grad.mm(mat2.t()) * alpha",
             lambda g, out, s, a, b, beta, alpha: _scaled(xp.matmul(g, mT(b)), alpha)),
    "mat2": ("mm_mat2_backward(grad, mat1, alpha): mat1.t().mm(grad) * alpha",
             lambda g, out, s, a, b, beta, alpha: _scaled(xp.matmul(mT(a), g), alpha))},
   saves={"mat1": ["mat2"], "mat2": ["mat1"]}, dtype=PROMOTE,
   shape=PRODUCT_SHAPE, saved_args=["alpha", "beta"], names=names("addmm"))
op("mv", "MvBackward0", ["self", "vec"], np.matmul,
   {"self": ("grad.ger(vec)", lambda g, out, a, v: xp.expand_dims(g, -1) * v),
    "vec": ("self.t().mv(grad)", lambda g, out, a, v: g @ a)}, saves={"self": ["vec"], "vec": ["self"]},
   shape=PRODUCT_SHAPE, names=names("mv"))
op("dot", "DotBackward0", ["self", "tensor"], np.matmul,
   {"self": ("grad * tensor", lambda g, out, a, b: xp.expand_dims(g, -1) * b),
    "tensor": ("grad * self", lambda g, out, a, b: xp.expand_dims(g, -1) * a)}, saves={"self": ["tensor"], "tensor": ["self"]},
   shape=PRODUCT_SHAPE, names=names("dot"))
op("bmm3", "BmmBackward0", ["self", "mat2"], xp.matmul,
   {"self": ("grad.bmm(mat2.transpose(1, 2))", lambda g, out, a, b: xp.matmul(g, mT(b))),
    "mat2": ("self.transpose(1, 2).bmm(grad)", lambda g, out, a, b: xp.matmul(mT(a), g))}, saves={"self": ["mat2"], "mat2": ["self"]},
   shape=PRODUCT_SHAPE, names=names("bmm"))


# --- diagonals: a selection of elements, both ways. The rules run on arrays, symbols and recorded Tensors alike, so
# they select with a product by a constant 0/1 matrix; the forwards place the numbers directly (zeros stay +0) ----
def diagonal_selector(shape: tuple, offset: int) -> np.ndarray:
    """P with P[k, i * n + j] = 1 for the k-th element of the `offset` diagonal of an (m, n) matrix: the diagonal
    of A is A.reshape(-1) @ P.T, and d @ P puts d on it."""
    m, n = shape
    rows = np.arange(max(0, -offset), max(max(0, -offset), min(m, n - offset)))
    selector = np.zeros((len(rows), m * n))
    selector[np.arange(len(rows)), rows * n + rows + offset] = 1
    return selector


def _times(v, matrix: np.ndarray):
    """v @ matrix for a constant matrix, in v's dtype (an array's, a symbolic array's or a recorded Tensor's)."""
    return v @ matrix.astype(v._data.dtype if xp.is_tensor(v) else v.dtype)


def _diag_embed(v, offset):
    """A square matrix with v on its `offset` diagonal (torch.diag of a vector)."""
    shape = (v.shape[0] + abs(offset),) * 2
    out = np.zeros(shape, dtype=v.dtype)
    out.reshape(-1)[diagonal_selector(shape, offset).argmax(1)] = v
    return out


def _diagonal(a, offset):
    return a.reshape(-1)[diagonal_selector(a.shape, offset).argmax(1)].copy()


op("diag_embed", "DiagEmbedBackward0", ["self"], _diag_embed,
   {"self": ("grad.diagonal(offset)",
             lambda g, out, v, offset: _times(g.reshape(-1), diagonal_selector(out.shape, offset).T))})
op("diag_copy", "DiagonalBackward0_copy", ["self"], _diagonal,
   {"self": ("grad placed on the offset diagonal of zeros shaped like self",
             lambda g, out, a, offset: _times(g, diagonal_selector(a.shape, offset)).reshape(a.shape))})
op("trace", "TraceBackward0", ["self"], lambda a: _diagonal(a, 0).sum(),
   {"self": ("grad on the diagonal of zeros shaped like self",
             lambda g, out, a: xp.select(diagonal_selector(a.shape, 0).sum(0).reshape(a.shape) == 1, g))},
   names=names("trace"))
