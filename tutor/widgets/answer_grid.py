"""The tensor answer editor: one cell per element, laid out in the tensor's shape.

A single widget draws every cell and edits the one under the cursor: arrow keys and Tab move,
digits, `.`, `-`, `/` type, Backspace deletes, Enter checks. (A grid of Input widgets was the
first version; 25 of them for a 5x5 answer made every step change and every check crawl.)
After a check, wrong cells turn red and the correct value appears under each of them.
"""
from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget

from tutor.answer_input import AnswerFormatError, parse_cell
from lessons.model import MAX_ANSWER_CELLS

MAX_COLUMNS = 8
MAX_CELLS = MAX_ANSWER_CELLS  # the one cap, shared with `check` and quiz templates
CELL_WIDTH = 9
TYPABLE = set("0123456789.-+/*() ")


def grid_fits(shape: tuple[int, ...]) -> bool:
    """Whether a tensor of `shape` gets a grid (0-, 1- or 2-D and small), else only the text field."""
    if len(shape) > 2:
        return False
    rows, columns = _grid_shape(shape)
    return 0 < columns <= MAX_COLUMNS and 0 < rows * columns <= MAX_CELLS


def _grid_shape(shape: tuple[int, ...]) -> tuple[int, int]:
    return (1, 1) if not shape else (1, shape[0]) if len(shape) == 1 else (shape[0], shape[1])


def format_cell(value: float) -> str:
    """A compact number for a cell: up to four decimals, no trailing zeros."""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


class AnswerGrid(Widget, can_focus=True):
    """A rows x columns grid of editable number cells for a 0-, 1- or 2-D tensor."""

    COMPONENT_CLASSES = {"answer-grid--cell", "answer-grid--cursor", "answer-grid--right", "answer-grid--wrong",
                         "answer-grid--correct"}

    class Submitted(Message):
        """Enter was pressed in the grid."""

    class Pasted(Message):
        """A whole answer was pasted into the grid; the screen moves it to the text field."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, shape: tuple[int, ...], **kwargs) -> None:
        super().__init__(**kwargs)
        self.shape = tuple(shape)
        self.rows, self.columns = _grid_shape(self.shape)
        self.texts = [["" for _ in range(self.columns)] for _ in range(self.rows)]
        self.cursor = (0, 0)
        self.marks = None  # per-cell True (right) / False (wrong) after a check
        self.expected = None

    # ------------------------------------------------------------------ drawing

    def render(self) -> Text:
        styles = {name: self.get_component_rich_style(f"answer-grid--{name}", partial=True)
                  for name in ("cell", "cursor", "right", "wrong", "correct")}
        text = Text(no_wrap=True)
        for row in range(self.rows):
            if row:
                text.append("\n")
            for column in range(self.columns):
                style = styles["cell"]
                if self.marks is not None:
                    style += styles["right"] if self.marks[row][column] else styles["wrong"]
                if self.has_focus and (row, column) == self.cursor:
                    style += styles["cursor"]
                shown = self.texts[row][column][-(CELL_WIDTH - 1):] or "·"  # empty cells stay visible without colour
                text.append(shown.rjust(CELL_WIDTH - 1) + " ", style=style)
                text.append(" ")
            if self.marks is not None and not all(self.marks[row]):
                text.append("\n")
                for column in range(self.columns):
                    shown = "" if self.marks[row][column] else f"✗ {format_cell(self.expected[row][column])}"
                    text.append(shown[:CELL_WIDTH].rjust(CELL_WIDTH) + " ", style=styles["correct"])
        return text

    def get_content_width(self, container, viewport) -> int:
        return self.columns * (CELL_WIDTH + 1)

    def get_content_height(self, container, viewport, width: int) -> int:
        wrong_rows = 0 if self.marks is None else sum(not all(row) for row in self.marks)
        return self.rows + wrong_rows

    # ------------------------------------------------------------------ editing

    def on_key(self, event: events.Key) -> None:
        row, column = self.cursor
        moves = {"left": (0, -1), "right": (0, 1), "up": (-1, 0), "down": (1, 0)}
        if event.key in moves:
            self.move(*moves[event.key])
        elif event.key == "tab" and (row, column) != (self.rows - 1, self.columns - 1):
            self.move(0, 1)
        elif event.key == "shift+tab" and (row, column) != (0, 0):
            self.move(0, -1)
        elif event.key == "backspace":
            self.texts[row][column] = self.texts[row][column][:-1]
        elif event.key == "delete":
            self.texts[row][column] = ""
        elif event.key == "enter":
            self.post_message(self.Submitted())
        elif event.character is not None and event.character in TYPABLE and event.is_printable:
            self.texts[row][column] += event.character
        else:
            return  # letters fall through to the screen's keys (hint, skip, …); Tab leaves the last cell
        event.stop()
        event.prevent_default()
        self.refresh(layout=True)

    def on_paste(self, event: events.Paste) -> None:
        """A number goes into the cell; a list or a printout is a whole answer."""
        event.stop()
        text = event.text.strip()
        if text and set(text) <= TYPABLE:
            row, column = self.cursor
            self.texts[row][column] += text
            self.refresh(layout=True)
        elif text:
            self.post_message(self.Pasted(text))

    def move(self, rows: int, columns: int) -> None:
        """Move the cursor, wrapping left/right along rows; the grid's edges stop it."""
        row, column = self.cursor[0] + rows, self.cursor[1] + columns
        if column < 0 and row > 0:
            row, column = row - 1, self.columns - 1
        elif column >= self.columns and row < self.rows - 1:
            row, column = row + 1, 0
        if 0 <= row < self.rows and 0 <= column < self.columns:
            self.cursor = (row, column)
            self.refresh()

    def on_click(self, event: events.Click) -> None:
        column = min(event.x // (CELL_WIDTH + 1), self.columns - 1)
        line, row = event.y, 0
        for row in range(self.rows):  # rows may be followed by a line of correct values
            extra = 1 if self.marks is not None and not all(self.marks[row]) else 0
            if line <= extra:
                break
            line -= 1 + extra
        self.cursor = (row, max(column, 0))
        self.focus()
        self.refresh()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # ------------------------------------------------------------------ values and marks

    def is_empty(self) -> bool:
        return all(not text.strip() for row in self.texts for text in row)

    def set_values(self, values) -> None:
        """Fill the cells (from a typed whole answer, say) with the numbers of an array."""
        import numpy as np

        flat = np.asarray(values, dtype=float).reshape(self.rows, self.columns)
        self.texts = [[format_cell(float(v)) for v in row] for row in flat]
        self.refresh(layout=True)

    def values(self):
        """The typed numbers as an array of the tensor's shape; the cursor goes to the first bad cell."""
        import numpy as np

        numbers = np.empty((self.rows, self.columns))
        for row in range(self.rows):
            for column in range(self.columns):
                try:
                    numbers[row, column] = parse_cell(self.texts[row][column])
                except AnswerFormatError:
                    self.cursor = (row, column)
                    self.refresh()
                    raise
        return numbers.reshape(self.shape)

    def mark(self, cells_ok, expected) -> None:
        """Colour each cell right or wrong; wrong cells show the correct value under them."""
        import numpy as np

        self.marks = np.asarray(cells_ok, dtype=bool).reshape(self.rows, self.columns).tolist()
        self.expected = np.asarray(expected, dtype=float).reshape(self.rows, self.columns).tolist()
        self.refresh(layout=True)

    def clear_marks(self) -> None:
        self.marks = self.expected = None
        self.refresh(layout=True)
