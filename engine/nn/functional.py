"""`torch.nn.functional`: activations and simple losses built from the engine's ops."""
from __future__ import annotations

from engine.tensor import Tensor


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
    return ((input - target) ** 2).mean()


__all__ = ["log_softmax", "mse_loss", "relu", "sigmoid", "softmax", "tanh"]
