"""Grad modes as PyTorch spells them (`no_grad`, `enable_grad`, `set_grad_enabled`, `inference_mode`): context
managers and decorators over `engine.state`, where the modes live."""
from __future__ import annotations

import functools

from engine import state

_modes = state.current


class no_grad:  # noqa: N801 - PyTorch's spelling
    """`with torch.no_grad():` — operations inside record no graph; `@torch.no_grad()` (or, as in PyTorch,
    `@torch.no_grad` without parentheses) on a function does the same for every call of it."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)

    def __enter__(self):
        belief = _modes().belief
        if belief is not None and belief.keeps_graph:  # a learner who believes gradients flow through no_grad
            self._believed = belief
            belief.in_no_grad += 1
            self._previous = state.update()
            return
        self._previous = state.update(grad=False)

    def __exit__(self, *exc):
        believed = getattr(self, "_believed", None)
        if believed is not None:
            believed.in_no_grad -= 1
            self._believed = None
        state.restore(self._previous, "grad")

    def __call__(self, fn):
        clone = self._clone

        @functools.wraps(fn, assigned=("__name__", "__qualname__", "__doc__"))  # __module__ stays the engine's
        def wrapper(*args, **kwargs):
            with clone():  # a fresh manager per call: recursive and nested calls restore their own mode
                return fn(*args, **kwargs)
        return wrapper

    def _clone(self):
        return type(self)()


class set_grad_enabled(no_grad):  # noqa: N801 - PyTorch's spelling
    """`torch.set_grad_enabled(mode)`: switches recording now, and back at the end of a `with` block."""

    def __new__(cls, mode: bool):
        return object.__new__(cls)

    def __init__(self, mode: bool) -> None:
        self._previous = state.update(grad=bool(mode))
        self._mode = bool(mode)

    def __enter__(self):
        pass

    def __call__(self, fn):
        state.restore(self._previous, "grad")  # as a decorator it switches nothing now, only during each call
        return super().__call__(fn)

    def _clone(self):
        return set_grad_enabled(self._mode)


class enable_grad(no_grad):  # noqa: N801
    """`with torch.enable_grad():` — record again inside a `no_grad` block."""

    def __enter__(self):
        self._previous = state.update(grad=True)


def is_grad_enabled() -> bool:
    return _modes().grad


class inference_mode(no_grad):  # noqa: N801 - PyTorch's spelling
    """`with torch.inference_mode():` — like no_grad, and the tensors made inside are inference tensors,
    which a graph may not save later (`@torch.inference_mode()` on a function too; `inference_mode(False)`
    switches it off inside)."""

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):
            return cls()(mode)
        return object.__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self._mode = bool(mode)

    def __enter__(self):
        self._previous = state.update(grad=not self._mode, inference=self._mode)

    def __exit__(self, *exc):
        state.restore(self._previous, "grad", "inference")

    def _clone(self):
        return inference_mode(self._mode)


def is_inference_mode_enabled() -> bool:
    return _modes().inference
