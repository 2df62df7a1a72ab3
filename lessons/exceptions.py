"""The exception types an error step may name: Python's built-in ones and PyTorch's own.

An error choice names a type (`"RuntimeError: …"`); a misspelt one (`RunTimeError`) could never
match, so the loader checks the name against these, with a did-you-mean.
"""
from __future__ import annotations

import builtins
import difflib

from lessons.messages import say
from lessons.text import LocalText

# PyTorch's public exception classes (torch 2.x), by the name a traceback shows
TORCH_EXCEPTIONS = frozenset({
    "OutOfMemoryError", "AcceleratorError", "LinAlgError", "CudaError", "DeferredCudaCallError",
    "DistError", "DistBackendError", "DistNetworkError", "DistStoreError", "JITException",
    "OnnxExporterError", "GradcheckError",
})

PYTHON_EXCEPTIONS = frozenset(
    name for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException) and not issubclass(value, Warning)
)

KNOWN_EXCEPTIONS = PYTHON_EXCEPTIONS | TORCH_EXCEPTIONS


def unknown_exception(name: str) -> LocalText | None:
    """None when `name` (possibly dotted: `torch.linalg.LinAlgError`) is a known exception type,
    else the message for the author."""
    short = name.strip().rsplit(".", 1)[-1]
    if short in KNOWN_EXCEPTIONS:
        return None
    lowered = {known.lower(): known for known in KNOWN_EXCEPTIONS}
    close = [lowered[short.lower()]] if short.lower() in lowered else \
        difflib.get_close_matches(short, sorted(KNOWN_EXCEPTIONS), n=1, cutoff=0.7)
    hint = say("did_you_mean", close=close[0]) if close else say("name_an_exception")
    return say("unknown_exception", name=f"'{short}'", hint=hint)
