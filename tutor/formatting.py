"""How the app writes values: an answer as PyTorch prints it, a shape, a grid cell. One place, so the
lesson, the quiz, the reveal screen and the grid agree."""
from __future__ import annotations


def format_cell(value: float) -> str:
    """A compact number for a cell: up to four decimals, no trailing zeros."""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def format_shape(shape: tuple[int, ...]) -> str:
    """`(2, 3)`, `(2,)`, `()` — as Python writes the tuple."""
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def format_value(kind: str, value) -> str:
    """An answer as the learner would see PyTorch print it."""
    if kind == "tensor":
        from engine.printing import format_tensor

        return format_tensor(value)
    if kind == "number":
        return format_cell(value)
    return str(value)
