"""`torch.optim`: SGD (momentum, dampening, nesterov, weight_decay) and Adam, with PyTorch's update rules,
`param_groups`, `zero_grad(set_to_none=True)` and printout."""
from __future__ import annotations

import numbers
import warnings

import numpy as np

from engine.grad_mode import no_grad
from engine.tensor import Tensor, guard_shape, guard_work

__all__ = ["Optimizer", "SGD", "Adam"]


class Optimizer:
    """Base class: holds `param_groups` (dicts with 'params' and the options) and per-parameter `state`."""

    def __init__(self, params, defaults: dict) -> None:
        self.defaults = defaults
        self.state: dict = {}
        self.param_groups: list[dict] = []
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        for group in groups:
            self.add_param_group(dict(group))

    def add_param_group(self, group: dict) -> None:
        params = group["params"]
        group["params"] = [params] if isinstance(params, Tensor) else list(params)
        for p in group["params"]:
            guard_work()  # `[{"params": ps}] * n` groups of `[w] * n` params: each one is work for the caller's guard
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                f"{type(p).__module__}.{type(p).__name__}")
            if p.grad_fn is not None:
                raise ValueError("can't optimize a non-leaf Tensor")
        if len({id(p) for p in group["params"]}) != len(group["params"]):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will cause "
                          "an error; see github.com/pytorch/pytorch/issues/40967 for more information", UserWarning,
                          stacklevel=3)
        for key, value in self.defaults.items():
            group.setdefault(key, value)
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                guard_work()
                if p._grad is not None:
                    if set_to_none:
                        p._grad = None
                    else:
                        p._grad._data[...] = 0

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        return "\n".join(lines) + "\n)"

    def step(self, closure=None):
        raise NotImplementedError


def _number(value: object, key: str) -> float:
    """A hyperparameter as the update uses it: a number (or a one-element tensor), whatever a snippet stored in
    `param_groups` (a list or an array there would broadcast every update to its own shape)."""
    if isinstance(value, Tensor) and value.numel() == 1 or isinstance(value, numbers.Real):
        return float(value)
    raise TypeError(f"param_groups option '{key}' must be a number, not {type(value).__name__}")


def _checked(p: Tensor, state: dict, *keys: str) -> None:
    """Before a parameter's update: its state tensors have its shape, as PyTorch's in-place updates require,
    and the update's temporaries (the parameter's size) are vetted by the caller's guard."""
    for key in keys:
        buffer = state.get(key)
        if buffer is None:
            continue
        if not isinstance(buffer, Tensor):
            raise TypeError(f"optimizer state '{key}' must be a Tensor, not {type(buffer).__name__}")
        if buffer.shape != p.shape:
            raise RuntimeError(f"output with shape [{', '.join(map(str, buffer.shape))}] doesn't match the shape "
                               f"[{', '.join(map(str, p.shape))}] of its parameter")
    guard_shape(p._data.shape)


class SGD(Optimizer):
    """`torch.optim.SGD(params, lr=0.001, momentum=0, dampening=0, weight_decay=0, nesterov=False)`."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize, foreach=foreach,
                                      differentiable=differentiable, fused=fused))

    @no_grad()
    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            options = ("lr", "momentum", "dampening", "weight_decay")
            lr, momentum, dampening, decay = (_number(group[k], k) for k in options)
            for p in group["params"]:
                guard_work()
                if p._grad is None:
                    continue
                _checked(p, self.state.get(p, {}), "momentum_buffer")
                d_p = p._grad._data if not group["maximize"] else -p._grad._data
                if decay:
                    d_p = d_p + decay * p._data
                if momentum:
                    state = self.state.setdefault(p, {})
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = state["momentum_buffer"] = Tensor._make(np.array(d_p, dtype=p._data.dtype))
                    else:
                        buf._data *= momentum
                        buf._data += (1 - dampening) * d_p
                    d_p = d_p + momentum * buf._data if group["nesterov"] else buf._data
                p._data -= np.asarray(lr * d_p, dtype=p._data.dtype)
                p._bump_version()
        return loss


class Adam(Optimizer):
    """`torch.optim.Adam(params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0, amsgrad=False)`."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable, fused=fused,
                                      decoupled_weight_decay=decoupled_weight_decay))

    @no_grad()
    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            beta1, beta2 = (_number(beta, "betas") for beta in group["betas"])
            lr, eps, decay = (_number(group[k], k) for k in ("lr", "eps", "weight_decay"))
            for p in group["params"]:
                guard_work()
                if p._grad is None:
                    continue
                _checked(p, self.state.get(p, {}), "exp_avg", "exp_avg_sq", "max_exp_avg_sq")
                grad = p._grad._data if not group["maximize"] else -p._grad._data
                dtype = p._data.dtype
                if decay:
                    if group["decoupled_weight_decay"]:
                        p._data *= np.asarray(1 - lr * decay, dtype=dtype)
                    else:
                        grad = grad + decay * p._data
                state = self.state.setdefault(p, {})
                if not state:
                    state["step"] = Tensor._make(np.array(0.0, dtype=np.float32))
                    state["exp_avg"] = Tensor._make(np.zeros_like(p._data))
                    state["exp_avg_sq"] = Tensor._make(np.zeros_like(p._data))
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = Tensor._make(np.zeros_like(p._data))
                state["step"]._data += 1
                step = float(state["step"]._data)
                m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
                m += (grad - m) * np.asarray(1 - beta1, dtype=dtype)  # lerp, as PyTorch
                v *= beta2
                v += np.asarray(1 - beta2, dtype=dtype) * grad * grad
                bias1 = 1 - beta1 ** step
                bias2 = 1 - beta2 ** step
                step_size = lr / bias1
                bias2_sqrt = bias2 ** 0.5
                if group["amsgrad"]:
                    mx = state["max_exp_avg_sq"]._data
                    np.maximum(mx, v, out=mx)
                    denom = np.sqrt(mx) / np.asarray(bias2_sqrt, dtype=dtype) + np.asarray(eps, dtype=dtype)
                else:
                    denom = np.sqrt(v) / np.asarray(bias2_sqrt, dtype=dtype) + np.asarray(eps, dtype=dtype)
                p._data -= np.asarray(step_size, dtype=dtype) * (m / denom)
                p._bump_version()
        return loss
