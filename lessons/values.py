"""Turning a value a program computed into a plain answer, and comparing two of them.

Shared by the engine side (`lessons.answers`) and the PyTorch side (`check --against-torch`,
whose values come back from `engine.sandbox.torch_jobs` as tagged data), so both classify `x.grad`,
`x.requires_grad` or `y.grad_fn.name()` the same way and differences are real differences.
"""
from __future__ import annotations

from dataclasses import dataclass
from numbers import Number

import numpy as np

from lessons.messages import say
from lessons.text import LocalText


class UnsupportedValue(TypeError):
    """The expression gives something a learner cannot type as an answer (`text`: why, in both languages)."""

    def __init__(self, text: LocalText):
        super().__init__(text.en)
        self.text = text


@dataclass(frozen=True)
class Plain:
    kind: str
    value: object  # numpy array | float | bool | None | str
    shape: tuple[int, ...] | None = None


def classify(value: object) -> Plain:
    """The answer kind and plain value of `value` (a tensor becomes a numpy array)."""
    if value is None:
        return Plain("none", None)
    if isinstance(value, (bool, np.bool_)):
        return Plain("bool", bool(value))
    if isinstance(value, Number) and not isinstance(value, complex):
        return Plain("number", float(value))
    if isinstance(value, str):
        return Plain("text", value)
    kind_name = getattr(value, "type_name", None) or type(value).__name__  # sandbox.UnsupportedResult
    if kind_name in ("Size", "dtype", "device"):
        return Plain("text", str(value))
    if hasattr(value, "detach") and hasattr(value, "shape"):
        array = np.array(value.detach().numpy(), copy=True)
        return Plain("tensor", array, tuple(int(n) for n in array.shape))
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":  # a tensor's values, from the sandbox
        return Plain("tensor", np.array(value, copy=True), tuple(int(n) for n in value.shape))
    if isinstance(value, (np.ndarray, list, tuple)):
        try:
            array = np.array(value)  # a tuple of bools stays bools (as `jobs.encode_value` keeps it)
            if array.dtype.kind != "b":
                array = np.array(value, dtype=np.float64)
        except (TypeError, ValueError):
            array = None
        if array is not None:
            return Plain("tensor", array, tuple(int(n) for n in array.shape))
    raise UnsupportedValue(say("untypable_answer", kind=kind_name))


# Below this, an answer's largest magnitude is taken for float32 rounding of an exact 0 (softmax gradients
# summing to 3e-08, say), which the authored absolute tolerance absorbs as before.
ROUNDING_SCALE = 1e-6


def scaled_atol(want: np.ndarray, atol: float) -> float:
    """`atol` shrunk to the answer's scale (its largest finite magnitude, when between `ROUNDING_SCALE` and 1):
    a gradient of [1e-05, 1e-05] is not [0, 0]. Never widened: a large answer is held by the relative
    tolerance, and a rounding-sized one keeps the authored `atol`."""
    finite = np.abs(want[np.isfinite(want)])
    scale = float(finite.max()) if finite.size else 0.0
    return atol * scale if ROUNDING_SCALE <= scale < 1 else atol


def isclose(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    """Per-cell agreement of `got` with the answer `want`, at the answer's scale (see `scaled_atol`)."""
    return np.isclose(got, want, rtol=rtol, atol=scaled_atol(want, atol), equal_nan=True)


def same(answer: Plain, other: Plain, rtol: float, atol: float) -> tuple[bool, np.ndarray | None]:
    """Whether `other` equals `answer` (numbers within tolerance), and the per-cell verdict for tensors."""
    numeric = ("tensor", "number")
    if answer.kind in numeric and other.kind in numeric:
        want = np.asarray(answer.value, dtype=np.float64)
        got = np.asarray(other.value, dtype=np.float64)
        if want.shape != got.shape:
            return False, None
        cells = isclose(got, want, rtol, atol)
        return bool(cells.all()), cells if answer.kind == "tensor" else None
    return answer.kind == other.kind and answer.value == other.value, None


def describe(plain: Plain) -> str:
    """A short human form of a plain value, for messages: on one line, as each of `check`'s problems is
    (`file:line: …`, for editors and grep), a matrix's rows too."""
    if plain.kind == "tensor":
        body = np.array2string(np.asarray(plain.value, dtype=np.float64), precision=4, separator=", ",
                               suppress_small=True, threshold=40, max_line_width=10**6)
        return f"tensor {' '.join(body.split())} (shape {list(plain.shape)})"
    if plain.kind == "text":
        return repr(plain.value)
    return "None" if plain.kind == "none" else repr(plain.value)


def to_json(plain: Plain) -> dict:
    value = plain.value.tolist() if plain.kind == "tensor" else plain.value
    return {"kind": plain.kind, "value": value, "shape": list(plain.shape) if plain.shape is not None else None}


def from_json(data: dict) -> Plain:
    if data["kind"] == "tensor":
        array = np.array(data["value"], dtype=np.float64).reshape(data["shape"])
        return Plain("tensor", array, tuple(data["shape"]))
    return Plain(data["kind"], data["value"])
