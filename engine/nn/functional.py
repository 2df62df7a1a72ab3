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
    return _apply("nll_loss", (input,), target=np.asarray(target._data, dtype=np.int64))


def cross_entropy(input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
    return nll_loss(input.log_softmax(-1), target)


__all__ = ["binary_cross_entropy_with_logits", "cross_entropy", "log_softmax", "mse_loss", "nll_loss", "relu",
           "sigmoid", "softmax", "tanh"]
