"""Numbers, shapes and arrays as text laid out for a width: what every explanation panel draws a value with.

An array is shown as a table of right-aligned columns when it fits the width it will be shown at (in
terminal cells), else row by row as lines of numbers; `fitted_matrix` makes that decision, from the shape
first (a huge array is refused before a single cell of it is formatted), then from its cells, each formatted
once for both the decision and what is drawn. A Jacobian too large for a table is summarised instead
(`jacobian_layout`: its diagonal in the input's shape, its diagonal blocks, or where its non-zeros are).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from rich import box
from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from sympy.printing.str import StrPrinter

from engine.explain.messages import t
from engine.explain.notation import one_line

cell_len("x₁²")  # rich reads its Unicode width table on first use: with this module, not in a confined child

FULL_LIMIT = 12          # show every entry of a Jacobian up to this many rows and columns
VALUES_SHOWN = 96        # a value is written out up to this many numbers; beyond, the first ones and a count
ROWS_SHOWN = 60          # a matrix taller than this is never drawn as a table
BLOCKS_SHOWN = 3
MAP_WIDTH = 60


def number(x) -> str:
    """PyTorch-like short numbers: 4, 0.5, 1.1667, 1.2e-07; -0 where PyTorch prints -0. (1/c₁ with c₁ = -0 is -inf:
    a constant shown as 0 would not give the numbers beside it)."""
    x = float(x)
    if x != x:
        return "nan"
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "-0" if math.copysign(1.0, x) < 0 else "0"
    if x.is_integer() and abs(x) < 1e6:
        return str(int(x))
    if 1e-4 <= abs(x) < 1e6:
        return f"{x:.4f}".rstrip("0").rstrip(".")
    return f"{x:.4e}"


def shape_text(shape, lang: str = "en") -> str:
    """5x5, length 2, scalar."""
    shape = tuple(shape)
    if not shape:
        return t("scalar", lang)
    return t("length", lang, n=shape[0]) if len(shape) == 1 else "x".join(map(str, shape))


class _EntryPrinter(StrPrinter):
    """sympy's str form with its infinities and nan written as PyTorch prints them (inf, -inf, nan), never
    sympy's oo; its unsigned infinity zoo (1/0 in exact arithmetic) has no sign to print and is written nan,
    as the entry is undefined."""

    def _print_Infinity(self, e):
        return "inf"

    def _print_NegativeInfinity(self, e):
        return "-inf"

    def _print_NaN(self, e):
        return "nan"

    def _print_ComplexInfinity(self, e):
        return "nan"


_ENTRY = _EntryPrinter()


def formula(expr) -> str:
    """A symbolic entry on one line: 2(inp₁ + 1), x₁₁²/2, tensor2₁₁/6, inf."""
    return one_line(_ENTRY.doprint(expr))


def cell(value) -> str:
    if isinstance(value, (bool, np.bool_)):  # a condition's entries, as PyTorch prints them
        return str(bool(value))
    return number(value) if isinstance(value, (int, float, np.number)) else formula(value)


def _rows(a) -> np.ndarray:
    a = np.asarray(a, dtype=object if np.asarray(a).dtype in (object, bool) else np.float64)
    return a.reshape(1, -1) if a.ndim < 2 else a.reshape(-1, a.shape[-1])


@dataclass(frozen=True, eq=False)
class FittedMatrix:
    """An array laid out for a width: its rows (of the last axis), the texts of its entries when its shape
    could fit a table (each formatted once), and whether the table does fit."""

    rows: np.ndarray
    texts: list[list[str]] | None   # None: refused by its shape alone, nothing formatted
    width: int                      # the cells its table takes (beyond the width when refused by shape)
    fits: bool

    def table(self, title: str | None = None) -> Table:
        """The array as an aligned table (0- and 1-d arrays as one row); only for a matrix that `fits`."""
        table = Table(show_header=False, box=box.SQUARE, title=title, padding=(0, 1),
                      show_lines=self.rows.dtype == object)
        for _ in range(self.rows.shape[1] or 1):
            table.add_column(justify="right", no_wrap=True)
        for texts in self.texts:
            table.add_row(*texts)
        return table

    def shown(self, lang: str) -> RenderableType:
        """The table when it fits, else the rows as lines of numbers: the first VALUES_SHOWN, and a count."""
        if self.fits:
            return self.table()
        shown, lines = 0, []
        for k, row in enumerate(self.rows):
            if shown >= VALUES_SHOWN:
                break
            left = VALUES_SHOWN - shown
            lines.append("  ".join(self.texts[k][:left] if self.texts is not None else map(cell, row[:left])))
            shown += min(row.size, left)
        if self.rows.size > shown:
            lines.append(t("more_values", lang, count=self.rows.size - shown, total=self.rows.size))
        return Text("\n".join(lines), no_wrap=False)


def fitted_matrix(a, width: int) -> FittedMatrix:
    """`a` laid out for `width` cells. A table takes its columns' contents, one space each side, and the
    borders; a shape whose columns could not fit even one cell wide, or too tall to draw, is refused first."""
    rows = _rows(a)
    if rows.shape[0] > ROWS_SHOWN or 4 * rows.shape[1] + 1 > width:
        return FittedMatrix(rows, None, width + 1, False)
    texts = [[cell(v) for v in row] for row in rows]
    taken = 4
    if texts and texts[0]:
        columns = [max(cell_len(row[j]) for row in texts) for j in range(len(texts[0]))]
        taken = sum(columns) + 3 * len(columns) + 1
    return FittedMatrix(rows, texts, taken, taken <= width)


def fitted(a, width: int, lang: str) -> RenderableType:
    """A value as a table when it fits the width, else row by row as lines of numbers."""
    return fitted_matrix(a, width).shown(lang)


def in_rows(vector, shape=None):
    """A flattened vector cut into rows as long as the last dim of `shape` (its own shape by default)."""
    vector = np.asarray(vector)
    shape = tuple(shape if shape is not None else vector.shape)
    width = shape[-1] if shape and shape[-1] else 1
    return vector.reshape(-1, width)


def sum_rows(before, add, after, width: int, lang: str) -> list:
    """before + add = after, side by side when it fits, else one under the other."""
    laid = [fitted_matrix(a, width) for a in (before, add, after)]
    if all(m.fits for m in laid) and sum(m.width for m in laid) + 6 <= width:
        sums = Table.grid(padding=(0, 1))
        for _ in range(5):
            sums.add_column(vertical="middle")
        sums.add_row(laid[0].table(), Text("+"), laid[1].table(), Text("="), laid[2].table())
        return [sums]
    return [laid[0].shown(lang), Text("+"), laid[1].shown(lang), Text("="), laid[2].shown(lang)]


# --- a Jacobian, whole or summarised ------------------------------------------------------------------------
def whole_jacobian(J, width: int) -> Table | None:
    """Every entry of a Jacobian, when it has at most FULL_LIMIT rows and columns and its table fits."""
    if max(J.shape) > FULL_LIMIT:
        return None
    whole = fitted_matrix(J, width)
    return whole.table() if whole.fits else None


def jacobian_layout(J, s, x_shape, width: int, lang: str, *, symbolic: bool = False) -> RenderableType:
    """Every entry when the Jacobian is small and fits; symbolic entries that do not fit, one per line (J₁₂ = …)
    when there are few; else its diagonal in the input's shape, its first diagonal blocks, or where its
    non-zeros are (`s`: `engine.explain.jacobian.structure`)."""
    whole = whole_jacobian(J, width)
    if whole is not None:
        return whole
    m, n = J.shape
    if symbolic and m * n <= 4 * FULL_LIMIT:
        lines = [f"J[{i + 1},{j + 1}] = {formula(J[i, j])}" for i in range(m) for j in range(n) if not (J[i, j] == 0)]
        return Text("\n".join(lines) if lines else "0")
    if s["kind"] in ("diagonal", "identity") and m == n:
        diagonal = fitted_matrix(np.diagonal(J).reshape(x_shape), width)
        if diagonal.fits:
            return Group(Text(t("diagonal_laid_out", lang)), diagonal.table())
    if s["kind"] == "block-diagonal":
        bm, bn = s["blocks"]
        k = m // bm
        blocks = [fitted_matrix(J[b * bm:(b + 1) * bm, b * bn:(b + 1) * bn], width) for b in range(min(k, BLOCKS_SHOWN))]
        if all(block.fits for block in blocks):
            shown = [block.table(title=t("block_title", lang, k=b + 1, total=k)) for b, block in enumerate(blocks)]
            if k > BLOCKS_SHOWN:
                shown.append(Text(t("more_blocks", lang, count=k - BLOCKS_SHOWN)))
            return Group(*shown)
    return _pattern(J, width, lang, t("nonzero_map", lang) if m > FULL_LIMIT or n > FULL_LIMIT
                    else t("wide_matrix", lang))


def _pattern(J, width: int, lang: str, head: str) -> RenderableType:
    m, n = J.shape
    shown = max(8, min(MAP_WIDTH, width - 2))
    nonzero = np.vectorize(lambda e: not (e == 0), otypes=[bool])(J)
    lines = ["".join("■" if z else "·" for z in row[:shown]) + ("…" if n > shown else "")
             for row in nonzero[:FULL_LIMIT * 2]]
    if m > FULL_LIMIT * 2:
        lines.append("⋮")
    return Group(Text(head), Text("\n".join(lines), no_wrap=True, overflow="crop"))
