"""The tensor answer editor: one field per element, laid out in the tensor's shape.

Arrow keys move between cells (left/right once the cursor reaches a field's edge), Tab moves
on. After a check, wrong cells turn red and show the correct value under them.
"""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Vertical
from textual.widget import Widget
from textual.widgets import Input, Static

from tutor.answer_input import AnswerFormatError, parse_cell

MAX_COLUMNS = 8
MAX_CELLS = 48


def grid_fits(shape: tuple[int, ...]) -> bool:
    """Whether a tensor of `shape` gets a grid (0-, 1- or 2-D and small), else only the text field."""
    if len(shape) > 2:
        return False
    rows, columns = (1, 1) if not shape else (1, shape[0]) if len(shape) == 1 else shape
    return 0 < columns <= MAX_COLUMNS and 0 < rows * columns <= MAX_CELLS


def format_cell(value: float) -> str:
    """A compact number for a cell: up to four decimals, no trailing zeros."""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


class GridCell(Input):
    """One element; knows its place so arrow keys can leave it."""

    BINDINGS = [
        Binding("up", "move(-1, 0)", show=False),
        Binding("down", "move(1, 0)", show=False),
    ]

    def __init__(self, row: int, column: int, **kwargs) -> None:
        super().__init__(compact=True, **kwargs)
        self.row = row
        self.column = column

    def action_move(self, rows: int, columns: int) -> None:
        grid = self.query_ancestor(AnswerGrid)
        grid.focus_cell(self.row + rows, self.column + columns)

    def action_cursor_left(self, select: bool = False) -> None:
        if self.cursor_position == 0 and not select:
            self.action_move(0, -1)
        else:
            super().action_cursor_left(select)

    def action_cursor_right(self, select: bool = False) -> None:
        if self.cursor_position >= len(self.value) and not select:
            self.action_move(0, 1)
        else:
            super().action_cursor_right(select)


class AnswerGrid(Widget):
    """A rows x columns grid of `GridCell`s for a 0-, 1- or 2-D tensor."""

    def __init__(self, shape: tuple[int, ...], **kwargs) -> None:
        super().__init__(**kwargs)
        self.shape = tuple(shape)
        self.rows, self.columns = (1, 1) if not shape else (1, shape[0]) if len(shape) == 1 else shape

    def compose(self) -> ComposeResult:
        with Grid(classes="cells") as grid:
            grid.styles.grid_size_columns = self.columns
            for row in range(self.rows):
                for column in range(self.columns):
                    with Vertical(classes="cell"):
                        yield GridCell(row, column, id=f"cell-{row}-{column}")
                        yield Static("", classes="correct-value")

    def cell(self, row: int, column: int) -> GridCell:
        return self.query_one(f"#cell-{row}-{column}", GridCell)

    def focus_cell(self, row: int, column: int) -> None:
        """Focus a cell, wrapping along rows; moving past the grid's edge does nothing."""
        if column < 0 and row >= 0:
            row, column = row - 1, self.columns - 1
        elif column >= self.columns:
            row, column = row + 1, 0
        if 0 <= row < self.rows and 0 <= column < self.columns:
            self.cell(row, column).focus()

    def is_empty(self) -> bool:
        return all(not cell.value.strip() for cell in self.query(GridCell))

    def set_values(self, values) -> None:
        """Fill the cells (from a typed whole answer, say) with the numbers of an array."""
        import numpy as np

        flat = np.asarray(values, dtype=float).reshape(self.rows, self.columns)
        for row in range(self.rows):
            for column in range(self.columns):
                self.cell(row, column).value = format_cell(float(flat[row, column]))

    def values(self):
        """The typed numbers as an array of the tensor's shape; the first bad cell gets focus."""
        import numpy as np

        numbers = np.empty((self.rows, self.columns))
        for row in range(self.rows):
            for column in range(self.columns):
                cell = self.cell(row, column)
                try:
                    numbers[row, column] = parse_cell(cell.value)
                except AnswerFormatError:
                    cell.focus()
                    raise
        return numbers.reshape(self.shape)

    def mark(self, cells_ok, expected) -> None:
        """Colour each cell right or wrong; wrong cells show the correct value under them."""
        import numpy as np

        ok = np.asarray(cells_ok, dtype=bool).reshape(self.rows, self.columns)
        want = np.asarray(expected, dtype=float).reshape(self.rows, self.columns)
        for row in range(self.rows):
            for column in range(self.columns):
                cell = self.cell(row, column)
                right = bool(ok[row, column])
                cell.set_class(right, "-right")
                cell.set_class(not right, "-wrong")
                label = cell.parent.query_one(".correct-value", Static)
                label.update("" if right else f"✗ {format_cell(float(want[row, column]))}")
                label.display = not right

    def clear_marks(self) -> None:
        for cell in self.query(GridCell):
            cell.remove_class("-right", "-wrong")
        for label in self.query(".correct-value"):
            label.display = False
