"""The engine's modes, in one context-local place: grad mode, inference mode, the forward-AD level,
anomaly detection, the size guard and (for diagnosing a learner's misconception) a belief.

They live in one `ContextVar`, so a mode set in one thread or asyncio task (a snippet run by the runner,
a worker of the app) is that context's own, and a new thread starts from the defaults as a fresh PyTorch
process does. `Modes` is immutable: a change replaces it (`update`), and putting the previous value back
(`restore`) is how every context manager of the torch surface ends. The hot path reads `current()` once per
op.
"""
from __future__ import annotations

import contextvars
import dataclasses
from collections.abc import Callable
from typing import Any


@dataclasses.dataclass(frozen=True, slots=True)
class Modes:
    grad: bool = True                  # torch.is_grad_enabled(): ops record a graph
    inference: bool = False            # torch.is_inference_mode_enabled(): no graph, inference tensors
    forward_ad: Any = None             # the `engine.autograd.forward_ad` module while a dual level is open, else None
    anomaly: bool = False              # torch.is_anomaly_enabled()
    check_nan: bool = True             # set_detect_anomaly(check_nan=...)
    size_guard: Callable | None = None  # vets every shape before it is allocated (the runner's limits)
    # a misconception's buggy rules for one run (`engine.explain.beliefs.Belief`); None: PyTorch's own
    belief: Any = None


_modes: contextvars.ContextVar[Modes] = contextvars.ContextVar("engine_modes", default=Modes())
current = _modes.get


def update(**changes) -> Modes:
    """Change some modes in this context; returns the previous ones (for `restore`)."""
    previous = _modes.get()
    _modes.set(dataclasses.replace(previous, **changes))
    return previous


def restore(previous: Modes, *fields: str) -> None:
    """Put back `fields` (all when none are named) as they were in `previous`."""
    if not fields:
        _modes.set(previous)
        return
    _modes.set(dataclasses.replace(_modes.get(), **{f: getattr(previous, f) for f in fields}))
