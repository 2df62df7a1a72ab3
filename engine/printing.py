"""PyTorch-identical ``repr``/``print`` text for the engine's tensors.

Learners compare what the tutor prints with what PyTorch prints, so the text must match PyTorch
2.13 character for character: the shared element width, the "integer mode" (``1.,``), the switch
to scientific notation, summarisation with ``...``, line wrapping and the ``dtype=``/``grad_fn=``
suffixes.  This is a fresh, compact port of the logic of PyTorch's ``torch/_tensor_str.py``
(BSD licence, (c) the PyTorch contributors) working directly on numpy arrays.  Like PyTorch, every
element is formatted as a Python number (``float``/``int``/``bool``), so a float32 ``1.1666666``
is formatted from its exact double value.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import numbers
from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = ["format_tensor", "get_printoptions", "printoptions", "set_printoptions"]


@dataclasses.dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


_OPTIONS = _PrintOptions()

# profile name -> (precision, threshold, edgeitems, linewidth), as in torch.set_printoptions
_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}

# By numpy dtype name, which is also PyTorch's (``torch.float64``) and ignores the byte order.
# The default dtypes print without a ``dtype=`` suffix (unless the tensor is empty).
_DEFAULT_DTYPES = frozenset({"float32", "int64", "bool"})
_SUPPORTED_DTYPES = frozenset({"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"})

_PREFIX = "tensor("


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Change how tensors print, with ``torch.set_printoptions`` semantics.

    A ``profile`` ("default", "short", "full") is applied first, the other given options override
    it, and ``sci_mode`` is always reset to the given value (None = choose automatically).
    """
    _check_option("precision", precision, integral=True)
    _check_option("threshold", threshold, integral=False)
    _check_option("edgeitems", edgeitems, integral=True)
    _check_option("linewidth", linewidth, integral=True)
    if profile is not None and profile not in _PROFILES:
        raise ValueError(
            f"set_printoptions: unknown profile {profile!r}; use one of {', '.join(map(repr, _PROFILES))}"
        )
    if sci_mode is not None and not isinstance(sci_mode, bool):
        raise TypeError(f"set_printoptions: sci_mode must be True, False or None, not {sci_mode!r}")
    if profile is not None:
        (_OPTIONS.precision, _OPTIONS.threshold, _OPTIONS.edgeitems, _OPTIONS.linewidth) = _PROFILES[profile]
    for name, value in (
        ("precision", precision),
        ("threshold", threshold),
        ("edgeitems", edgeitems),
        ("linewidth", linewidth),
    ):
        if value is not None:
            setattr(_OPTIONS, name, value)
    _OPTIONS.sci_mode = sci_mode


def _check_option(name: str, value: object, *, integral: bool) -> None:
    """Refuse an option PyTorch would only choke on later, while printing."""
    if value is None:
        return
    wanted = "a non-negative integer" if integral else "a non-negative number"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral if integral else numbers.Real):
        raise TypeError(f"set_printoptions: {name} must be {wanted}, not {value!r}")
    if value < 0:
        raise ValueError(f"set_printoptions: {name} must be {wanted}, not {value!r}")


def get_printoptions() -> dict[str, Any]:
    """The current options, as keyword arguments for :func:`set_printoptions`."""
    return dataclasses.asdict(_OPTIONS)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Temporarily change the print options (``with torch.printoptions(precision=2): ...``)."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


class _Formatter:
    """Decides, from all (shown) elements at once, the mode and the common width of elements."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.precision = _OPTIONS.precision
        self.max_width = 1
        flat = values.ravel()
        if not self.floating:
            self.max_width = max([1, *(len(str(v)) for v in flat.tolist())])
            return
        shown = flat[np.isfinite(flat) & (flat != 0)]
        if shown.size == 0:
            return
        self.int_mode = bool(np.all(shown == np.ceil(shown)))
        magnitudes = np.abs(shown)
        smallest, largest = float(magnitudes.min()), float(magnitudes.max())  # compared as doubles
        if _OPTIONS.sci_mode is None:
            self.sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
        else:
            self.sci_mode = _OPTIONS.sci_mode
        if self.sci_mode:
            spec, extra = f".{self.precision}e", 0
        elif self.int_mode:
            spec, extra = ".0f", 1  # room for the trailing "." that marks a float
        else:
            spec, extra = f".{self.precision}f", 0
        self.max_width = max(len(format(v, spec)) + extra for v in shown.tolist())

    def format(self, value: float | int | bool) -> str:
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = format(value, f"{self.max_width}.{self.precision}e")
        elif self.int_mode:
            text = format(value, ".0f")
            if math.isfinite(value):
                text += "."
        else:
            text = format(value, f".{self.precision}f")
        return text.rjust(self.max_width)


def _summarized(values: np.ndarray) -> np.ndarray:
    """The elements that will be shown when summarising (PyTorch's ``get_summarized_data``)."""
    edge = _OPTIONS.edgeitems
    if values.ndim == 0:
        return values
    if not edge:  # only "..." is shown
        return np.empty([0] * values.ndim, values.dtype)
    if values.ndim == 1:
        return np.concatenate((values[:edge], values[-edge:])) if len(values) > 2 * edge else values
    rows = [*values[:edge], *values[-edge:]] if len(values) > 2 * edge else list(values)
    return np.stack([_summarized(row) for row in rows])


def _vector_str(values: np.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    edge = _OPTIONS.edgeitems
    per_line = max(1, math.floor((_OPTIONS.linewidth - indent) / (formatter.max_width + 2)))
    if summarize and not edge:
        items = ["..."]
    elif summarize and len(values) > 2 * edge:
        items = [
            *map(formatter.format, values[:edge].tolist()),
            " ...",
            *map(formatter.format, values[-edge:].tolist()),
        ]
    else:
        items = [formatter.format(v) for v in values.tolist()]
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(values: np.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    if values.ndim == 0:
        return formatter.format(values.item())
    if values.ndim == 1:
        return _vector_str(values, indent, summarize, formatter)
    edge, count = _OPTIONS.edgeitems, len(values)
    if summarize and count > 2 * edge:
        rows = [*range(edge), None, *range(count - edge, count)]
    else:
        rows = list(range(count))
    slices = ["..." if i is None else _nested_str(values[i], indent + 1, summarize, formatter) for i in rows]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """Append ``, suffix`` items, moving one to its own line when it would pass the line width."""
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > _OPTIONS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def format_tensor(data: np.ndarray, *, requires_grad: bool = False, grad_fn: str | None = None,
                  tangent: str | None = None) -> str:
    """The text PyTorch prints for a CPU tensor holding ``data``.

    ``grad_fn`` is the name of the node's class (``"MulBackward0"``); when given, PyTorch shows it
    instead of ``requires_grad=True``. ``tangent`` is a dual tensor's ``tangent=...`` suffix (forward AD).
    """
    if isinstance(data, np.generic):
        data = np.asarray(data)
    if not isinstance(data, np.ndarray):
        raise TypeError(f"format_tensor: expected a numpy array, got {type(data).__name__}")
    if data.dtype.name not in _SUPPORTED_DTYPES:
        raise TypeError(
            f"format_tensor: cannot print dtype {data.dtype}; "
            "supported: float16/32/64, int8/16/32/64, uint8 and bool"
        )
    indent = len(_PREFIX)
    suffixes = []
    if data.size == 0:
        if data.ndim != 1:
            suffixes.append(f"size={tuple(data.shape)}")
        if data.dtype.name != "float32":  # nothing shows that an empty tensor holds integers
            suffixes.append(f"dtype=torch.{data.dtype.name}")
        body = "[]"
    else:
        if not _OPTIONS.edgeitems:
            suffixes.append(f"size={tuple(data.shape)}")
        if data.dtype.name not in _DEFAULT_DTYPES:
            suffixes.append(f"dtype=torch.{data.dtype.name}")
        summarize = data.size > _OPTIONS.threshold
        formatter = _Formatter(_summarized(data) if summarize else data)
        body = _nested_str(data, indent, summarize, formatter)
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:
        suffixes.append(tangent)
    return _add_suffixes(_PREFIX + body, suffixes, indent)
