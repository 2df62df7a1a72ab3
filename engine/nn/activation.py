"""`torch.nn`'s activation layers (ReLU, Tanh, Sigmoid, LeakyReLU, ELU, SiLU, GELU, Softplus) and Dropout: each a
functional of `engine.nn.functional` as a layer, for `nn.Sequential`."""
from __future__ import annotations

from engine.nn import functional as F
from engine.nn.modules import Module


class ReLU(Module):
    """`F.relu` as a layer, for `nn.Sequential`."""

    def forward(self, input):  # noqa: A002
        return F.relu(input)


class Tanh(Module):
    """`torch.tanh` as a layer."""

    def forward(self, input):  # noqa: A002
        return F.tanh(input)


class Sigmoid(Module):
    """`torch.sigmoid` as a layer."""

    def forward(self, input):  # noqa: A002
        return F.sigmoid(input)


class _Activation(Module):
    """A functional activation as a layer; its keyword options are its `extra_repr`, as PyTorch prints them."""

    function = staticmethod(F.relu)

    def __init__(self, **options) -> None:
        super().__init__()
        self._options = options
        for name, value in options.items():
            object.__setattr__(self, name, value)

    def forward(self, input):  # noqa: A002
        return type(self).function(input, **self._options)

    def extra_repr(self) -> str:
        return ", ".join(f"{k}={v!r}" for k, v in self._options.items() if k != "inplace" or v)


class LeakyReLU(_Activation):
    function = staticmethod(F.leaky_relu)

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__(negative_slope=negative_slope, inplace=inplace)


class ELU(_Activation):
    function = staticmethod(F.elu)

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__(alpha=alpha, inplace=inplace)


class SiLU(_Activation):
    function = staticmethod(F.silu)

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(inplace=inplace)


class GELU(_Activation):
    function = staticmethod(F.gelu)

    def __init__(self, approximate: str = "none") -> None:
        super().__init__(approximate=approximate)


class Softplus(_Activation):
    function = staticmethod(F.softplus)

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__(beta=beta, threshold=threshold)


class Dropout(Module):
    """`F.dropout` as a layer: active in training mode, the identity after `eval()`."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):  # noqa: A002
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"
