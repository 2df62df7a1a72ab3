"""How the app writes values: an answer as PyTorch prints it, a shape, a grid cell. One place, so the
lesson, the quiz, the reveal screen and the grid agree."""
from __future__ import annotations


def format_cell(value: float) -> str:
    """A compact number for a cell: up to four decimals, no trailing zeros; a number that four decimals
    would show as 0 in scientific notation (`1e-05`), so a tiny gradient never reads as zero."""
    if value != 0 and abs(value) < 5e-5:
        mantissa, exponent = f"{value:.4e}".split("e")
        return mantissa.rstrip("0").rstrip(".") + "e" + exponent
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def format_shape(shape: tuple[int, ...]) -> str:
    """`(2, 3)`, `(2,)`, `()` — as Python writes the tuple."""
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def format_value(kind: str, value) -> str:
    """An answer as the learner would see PyTorch print it; True/False values (a bool tensor or a tuple of
    flags, which the answer does not tell apart) as the nested list a learner types."""
    if kind == "tensor" and getattr(value, "dtype", None) == bool:
        return str(value.tolist())
    if kind == "tensor":
        from engine.printing import format_tensor

        return format_tensor(value)
    if kind == "number":
        return format_cell(value)
    return str(value)


BAR_WIDTH = 10
MUTED = "bright_black"  # secondary text in rich renderables (a step count, "prints nothing", a note); each
                        # theme gives it a colour at 4.5:1 (`tutor.themes`), and no Textual is needed to name it


def accuracy_bar(accuracy: float | None):
    """`███████░░░  70%`, green from 80 %, yellow from 50 %, red below; a dash without attempts (a rich Text)."""
    from rich.text import Text

    if accuracy is None:
        return Text.assemble(("—", MUTED))
    filled = round(accuracy * BAR_WIDTH)
    style = "green" if accuracy >= 0.8 else "yellow" if accuracy >= 0.5 else "red"
    return Text.assemble(("█" * filled, style), ("░" * (BAR_WIDTH - filled), MUTED), f" {accuracy:4.0%}")
