"""`torch.nn.functional`: activations and simple losses built from the engine's ops."""
from __future__ import annotations

import numpy as np

from engine.tensor import Tensor, _apply


def relu(input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's argument name
    return input.relu()


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    return input.tanh()


def softmax(input: Tensor, dim: int) -> Tensor:  # noqa: A002
    return input.softmax(dim)


def log_softmax(input: Tensor, dim: int) -> Tensor:  # noqa: A002
    return input.log_softmax(dim)


def mse_loss(input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
    return _apply("mse_loss", (input, target))


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
    return _apply("bce_with_logits", (input, target))


def nll_loss(input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
    target = np.asarray(target._data, dtype=np.int64)
    if target.ndim > 1:  # an (N, 1) target would gather N × N elements
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input._data.ndim == 2 and target.shape[:1] != input._data.shape[:1]:
        raise ValueError(f"Expected input batch_size ({input._data.shape[0]}) to match target batch_size "
                         f"({target.shape[0] if target.ndim else 1}).")
    return _apply("nll_loss", (input,), target=target)


def cross_entropy(input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
    return nll_loss(input.log_softmax(-1), target)


__all__ = ["binary_cross_entropy_with_logits", "cross_entropy", "log_softmax", "mse_loss", "nll_loss", "relu",
           "sigmoid", "softmax", "tanh"]
