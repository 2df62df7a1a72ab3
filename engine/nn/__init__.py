"""`torch.nn`: only `functional` — the activation and loss functions lessons use."""
from engine.nn import functional

__all__ = ["functional"]
