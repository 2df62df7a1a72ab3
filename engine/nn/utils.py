"""`torch.nn.utils`: gradient clipping, as a training loop uses it between `backward()` and `step()`."""
from __future__ import annotations

import math

from engine.grad_mode import no_grad
from engine.methods.shape import stack
from engine.tensor import Tensor, tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


def _grads(parameters, function: str) -> list[Tensor]:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    try:
        parameters = list(parameters)
    except TypeError:
        raise TypeError(f"{function}(): parameters must be a Tensor or an iterable of Tensors, not "
                        f"{type(parameters).__name__}") from None
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None) -> Tensor:
    """Scale the gradients in place so that their joint norm is at most `max_norm`; return that norm (before
    scaling). PyTorch's arithmetic: the norm of the per-tensor norms, and a factor max_norm / (norm + 1e-6)
    clamped to 1 that multiplies every gradient (also when it is 1)."""
    grads = _grads(parameters, "clip_grad_norm_")
    norm_type = float(norm_type)
    if not grads:
        return tensor(0.)
    with no_grad():
        total = stack([g.norm(norm_type) for g in grads]).norm(norm_type)
        if error_if_nonfinite and not math.isfinite(total.item()):
            raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                               "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                               "anyway, set `error_if_nonfinite=False`")
        factor = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(factor)
    return total


def clip_grad_value_(parameters, clip_value, foreach=None) -> None:
    """Clamp every gradient in place to [-clip_value, clip_value]."""
    grads = _grads(parameters, "clip_grad_value_")
    clip_value = float(clip_value)
    with no_grad():
        for g in grads:
            g.copy_(g.clamp(min=-clip_value, max=clip_value))
