"""`torch.nn.functional`: activations and losses, each one entry of the engine's derivative table (or a
composition of entries, where PyTorch composes them too), with PyTorch's signatures and checks."""
from __future__ import annotations

import warnings

import numpy as np

from engine import dtypes
from engine.creation import rand, zeros_like
from engine.dims import normalize_dim
from engine.tensor import Tensor, _apply, _tensor_arg

_REDUCTIONS = ("none", "mean", "sum")


def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002 - PyTorch's argument name
    return input.relu_() if inplace else input.relu()


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    return input.tanh()


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:  # noqa: A002
    return _activation("leaky_relu", input, inplace, slope=float(negative_slope))


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    return _activation("elu", input, inplace, alpha=float(alpha))


def silu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    return _activation("silu", input, inplace)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:  # noqa: A002
    return _activation("softplus", input, False, beta=float(beta), threshold=float(threshold))


def gelu(input: Tensor, approximate: str = "none") -> Tensor:  # noqa: A002
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    if approximate == "tanh":
        raise NotImplementedError("gelu(approximate='tanh') is not supported by this engine")
    return _activation("gelu", input, False)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """In training, each element zeroed with probability p and the rest scaled by 1/(1-p) (the mask from the
    engine's random stream, not PyTorch's); otherwise the input itself."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:  # PyTorch multiplies by zeros (MulBackward0)
        return input * zeros_like(input)
    keep = (rand(*input.shape)._data >= p).astype(input._data.dtype)
    return _activation("native_dropout", input, inplace, mask=keep, scale=1.0 / (1.0 - p))


def _activation(key: str, input: Tensor, inplace: bool, **attrs) -> Tensor:  # noqa: A002
    """One activation's node; `inplace=True` (a memory saving in PyTorch) is refused rather than faked."""
    if inplace:
        raise NotImplementedError(f"{key}(inplace=True) is not supported by this engine")
    return _apply(key, (_tensor_arg(input, key, "input", 1),), **attrs)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """`x @ weight.T + bias`, recorded as PyTorch's kernel does: one AddmmBackward0 for 2-D input; other
    contiguous input flattened to 2-D around it (ViewBackward0 on each side); without bias, a matmul."""
    if input.dim() == 0 or weight.dim() == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {input.dim()}D and "
                           f"{weight.dim()}D")
    if bias is None:
        return input.matmul(weight.t())
    if input.dim() == 2:
        return bias.addmm(input, weight.t())
    if input.is_contiguous() and (input.dim() == 3 or bias.dim() == 1):
        out = bias.addmm(input.reshape(-1, input.shape[-1]), weight.t())
        return out.view(*input.shape[:-1], out.shape[-1])
    return input.matmul(weight.t()) + bias


def _softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    """PyTorch's implicit dim (deprecated, with its warning): 0 for 0-, 1- and 3-dim inputs, else 1."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:  # noqa: A002
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return (input if dtype is None else input.to(dtype)).softmax(dim)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:  # noqa: A002
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return (input if dtype is None else input.to(dtype)).log_softmax(dim)


def _reduction(reduction: str, size_average=None, reduce=None) -> str:
    if size_average is not None or reduce is not None:
        raise NotImplementedError("the deprecated size_average/reduce arguments are not supported by this engine; "
                                  "use reduction='mean'|'sum'|'none'")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _unsupported(function: str, **options) -> None:
    for name, value in options.items():
        if value is not None and value is not False and value != 0:
            raise NotImplementedError(f"{function}({name}=...) is not supported by this engine")


def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,  # noqa: A002
             reduction: str = "mean", weight=None) -> Tensor:
    _unsupported("mse_loss", weight=weight)
    reduction = _reduction(reduction, size_average, reduce)
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", UserWarning, stacklevel=2)
    return _apply("mse_loss", (input, target), reduction=reduction)


def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,  # noqa: A002
            reduction: str = "mean") -> Tensor:
    reduction = _reduction(reduction, size_average, reduce)
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", UserWarning, stacklevel=2)
    loss = (input - target).abs()
    return loss if reduction == "none" else loss.sum() if reduction == "sum" else loss.mean()


def binary_cross_entropy(input: Tensor, target: Tensor, weight=None, size_average=None,  # noqa: A002
                         reduce=None, reduction: str = "mean") -> Tensor:
    _unsupported("binary_cross_entropy", weight=weight)
    reduction = _reduction(reduction, size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    if target.dtype is not input.dtype:
        raise RuntimeError(f"Found dtype {dtypes.SCALAR_TYPE_NAMES[target.dtype.name]} but expected "
                           f"{dtypes.SCALAR_TYPE_NAMES[input.dtype.name]}")
    values = input._data
    if values.size and not ((values >= 0) & (values <= 1)).all():
        raise RuntimeError("all elements of input should be between 0 and 1")
    return _apply("bce", (input, target), reduction=reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight=None, size_average=None,  # noqa: A002
                                     reduce=None, reduction: str = "mean", pos_weight=None) -> Tensor:
    _unsupported("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    reduction = _reduction(reduction, size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    return _apply("bce_with_logits", (input, target), reduction=reduction)


def _class_target(input: Tensor, target: Tensor) -> np.ndarray:
    """Class indices, checked as nll_loss checks them."""
    if target.dtype not in (dtypes.int64, dtypes.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {dtypes.SCALAR_TYPE_NAMES[target.dtype.name]}")
    if input.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    if input.dim() == 1:
        if target.dim() > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    elif target.dim() != input.dim() - 1 or target.shape[0] != input.shape[0]:
        if input.dim() == 2 and target.dim() > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0] if target.dim() else 1}).")
    return np.asarray(target._data, dtype=np.int64)


def nll_loss(input: Tensor, target: Tensor, weight=None, size_average=None, ignore_index: int = -100,  # noqa: A002
             reduce=None, reduction: str = "mean") -> Tensor:
    _unsupported("nll_loss", weight=weight)
    reduction = _reduction(reduction, size_average, reduce)
    classes = _class_target(input, target)
    if input.dtype.is_floating_point is False:
        raise NotImplementedError(f'"nll_loss_out_frame" not implemented for \'{dtypes.SCALAR_TYPE_NAMES[input.dtype.name]}\'')
    n_classes = input.shape[0 if input.dim() == 1 else 1]
    bad = classes[(classes != ignore_index) & ((classes < 0) | (classes >= n_classes))]
    if bad.size:
        raise IndexError(f"Target {bad.reshape(-1)[0]} is out of bounds.")
    return _apply("nll_loss2d" if input.dim() > 2 else "nll_loss", (input,), target=classes, reduction=reduction,
                  ignore_index=ignore_index)


def cross_entropy(input: Tensor, target: Tensor, weight=None, size_average=None,  # noqa: A002
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Class indices (nll_loss of log_softmax) or, for a float target shaped like the input, class
    probabilities (-(target * log_softmax).sum(), divided by the batch size for 'mean'), as PyTorch."""
    _unsupported("cross_entropy", weight=weight, label_smoothing=label_smoothing)
    reduction = _reduction(reduction, size_average, reduce)
    target = _tensor_arg(target, "cross_entropy", "target")
    class_dim = 0 if input.dim() == 1 else 1
    log_probs = input.log_softmax(class_dim)
    if target.is_floating_point() and target.shape == input.shape:
        if reduction == "none":
            return -(log_probs * target).sum(class_dim)
        loss = -(log_probs * target).sum()
        if reduction == "sum":
            return loss
        return _apply("div_scalar", (loss,), other=input.numel() // input.shape[class_dim])
    if target.is_floating_point() and target.dim() == input.dim():
        normalize_dim(class_dim, input.dim())
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    return nll_loss(log_probs, target, ignore_index=ignore_index, reduction=reduction)

def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm=None,  # noqa: A002
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """The rows of `weight` at the integer positions in `input` (shape input.shape + (embedding_dim,)); a row
    looked up several times gets the sum of their gradients, the `padding_idx` row none."""
    _unsupported("embedding", max_norm=max_norm, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)
    input = _tensor_arg(input, "embedding", "input", 1)
    weight = _tensor_arg(weight, "embedding", "weight", 2)
    indices = input._data
    if indices.dtype.kind not in "iu":
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, "
                           f"Int; but got torch.{dtypes.SCALAR_TYPE_NAMES[indices.dtype.name]}Tensor instead (while checking "
                           "arguments for embedding)")
    n = weight._data.shape[0] if weight._data.ndim else 0
    if weight._data.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if ((indices < 0) | (indices >= n)).any():
        raise IndexError("index out of range in self")
    if padding_idx is not None:
        if not -n <= padding_idx < n:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx = padding_idx % n
    return _apply("embedding", (weight,), indices=indices.astype(np.int64), padding_idx=padding_idx)


__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy", "dropout", "elu", "embedding", "gelu",
           "l1_loss", "leaky_relu", "linear", "log_softmax", "mse_loss", "nll_loss", "relu", "sigmoid", "silu", "softmax",
           "softplus", "tanh"]
