"""`torch.nn`'s loss layers (MSELoss, CrossEntropyLoss, BCELoss, BCEWithLogitsLoss): each a loss of
`engine.nn.functional` as a layer, with its reduction."""
from __future__ import annotations

from engine.nn import functional as F
from engine.nn.modules import Module


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction


class MSELoss(_Loss):
    """`F.mse_loss` as a module, with its `reduction` ('mean', 'sum' or 'none')."""

    def forward(self, input, target):  # noqa: A002
        return F.mse_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_Loss):
    """`F.cross_entropy` as a module (logits and class indices or probabilities)."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(reduction=reduction)
        self.weight, self.ignore_index, self.label_smoothing = weight, ignore_index, label_smoothing

    def forward(self, input, target):  # noqa: A002
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCELoss(_Loss):
    """`F.binary_cross_entropy` as a module (probabilities in [0, 1])."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(reduction=reduction)
        self.weight = weight

    def forward(self, input, target):  # noqa: A002
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """`F.binary_cross_entropy_with_logits` as a module (logits; `pos_weight` supported)."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean", pos_weight=None) -> None:
        super().__init__(reduction=reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def forward(self, input, target):  # noqa: A002
        return F.binary_cross_entropy_with_logits(input, target, weight=self.weight, reduction=self.reduction,
                                                  pos_weight=self.pos_weight)
