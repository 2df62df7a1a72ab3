"""The tensor answer editor: one cell per element, laid out in the tensor's shape.

A single widget draws every cell and edits the one under the cursor: arrow keys and Tab move,
digits, `.`, `-`, `/` (and `nan`, `inf`) type, Backspace deletes, Enter checks. (A grid of Input
widgets was the first version; 25 of them for a 5x5 answer made every step change and every check
crawl.)
Any other printable key (a letter: the learner is writing a formula such as `x**2/2`) is handed to
the whole-answer field, never to the screen's one-letter commands.
After a check, wrong cells are marked; the correct values appear under them only once the learner
has asked to see the answer. Editing a cell clears its mark.
"""
from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget

from lessons.model import MAX_ANSWER_CELLS
from tutor.answer_input import MAX_LENGTH, AnswerFormatError, normalise, read_cell
from tutor.formatting import format_cell  # noqa: F401  (re-exported: the grid's cell format)

MAX_COLUMNS = 8
MAX_CELLS = MAX_ANSWER_CELLS  # the one cap, shared with `check` and quiz templates
CELL_WIDTH = 9
TYPABLE = set("0123456789.-+/*() eE")  # e: 1e9 is a number too
SPECIAL = ("nan", "inf")  # letters a cell keeps while they spell one of these (lessons ask for `nan`)


def _cell_text(text: str) -> bool:
    """Whether `text` belongs in a cell: digits and operators, or (the start of) a signed nan or inf."""
    word = text.strip().lstrip("+-").lower()
    return set(text) <= TYPABLE or (bool(word) and any(name.startswith(word) for name in SPECIAL))


def grid_fits(shape: tuple[int, ...]) -> bool:
    """Whether a tensor of `shape` gets a grid (0-, 1- or 2-D and small), else only the text field."""
    if len(shape) > 2:
        return False
    rows, columns = _grid_shape(shape)
    return 0 < columns <= MAX_COLUMNS and 0 < rows * columns <= MAX_CELLS


def _grid_shape(shape: tuple[int, ...]) -> tuple[int, int]:
    return (1, 1) if not shape else (1, shape[0]) if len(shape) == 1 else (shape[0], shape[1])


class AnswerGrid(Widget, can_focus=True):
    """A rows x columns grid of editable number cells for a 0-, 1- or 2-D tensor."""

    COMPONENT_CLASSES = {"answer-grid--cell", "answer-grid--cursor", "answer-grid--right", "answer-grid--wrong",
                         "answer-grid--correct"}

    class Submitted(Message):
        """Enter was pressed in the grid."""

    class Edited(Message):
        """A cell was changed: the grid, not a whole answer typed earlier, now holds the prediction."""

    class TypedElsewhere(Message):
        """A key that is no part of a number was typed: it starts a whole answer in the text field."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

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
        self.forwarding = False  # a letter sent the answer to the whole-answer field: keys queued here follow it
        self.expected = None

    # ------------------------------------------------------------------ drawing

    def render(self) -> Text:
        # Cell and cursor styles are complete (their backgrounds blended onto the widget's, so they are
        # readable in both themes); the marks only add a colour and a text style on top.
        styles = {name: self.get_component_rich_style(f"answer-grid--{name}", partial=name not in ("cell", "cursor"))
                  for name in ("cell", "cursor", "right", "wrong", "correct")}
        text = Text(no_wrap=True)
        for row in range(self.rows):
            if row:
                text.append("\n")
            for column in range(self.columns):
                style = styles["cell"]
                if self.has_focus and (row, column) == self.cursor:
                    style = styles["cursor"]
                mark = self.marks[row][column] if self.marks is not None else None
                if mark is not None:
                    style += styles["right"] if mark else styles["wrong"]
                shown = _tail(self.texts[row][column], CELL_WIDTH - 1) or "·"  # empty cells stay visible without colour
                text.append(shown.rjust(CELL_WIDTH - 1) + " ", style=style)
                text.append(" ")
            if self._shows_values(row):
                text.append("\n")
                for column in range(self.columns):
                    shown = "" if self.marks[row][column] is not False else _correct_value(self.expected[row][column])
                    text.append(shown.rjust(CELL_WIDTH) + " ", style=styles["correct"])
        return text

    def _shows_values(self, row: int) -> bool:
        """Whether a line of correct values follows `row` (only once the answer is shown)."""
        return self.expected is not None and self.marks is not None and any(mark is False for mark in self.marks[row])

    def get_content_width(self, container, viewport) -> int:
        return self.columns * (CELL_WIDTH + 1)

    def get_content_height(self, container, viewport, width: int) -> int:
        return self.rows + sum(self._shows_values(row) for row in range(self.rows))

    # ------------------------------------------------------------------ editing

    def check_consume_key(self, key: str, character: str | None) -> bool:
        """Printable keys type here (or move to the whole-answer field): the screen's one-letter
        commands are inactive, and hidden from the footer, while the grid has focus (as for an Input)."""
        return character is not None and character.isprintable()

    def on_key(self, event: events.Key) -> None:
        if self.forwarding and event.character is not None and event.is_printable:
            # keys typed on before the whole-answer field took focus follow the letter that went there
            event.stop()
            self.post_message(self.TypedElsewhere(event.character))
            return
        row, column = self.cursor
        moves = {"left": (0, -1), "right": (0, 1), "up": (-1, 0), "down": (1, 0)}
        if event.key in moves:
            self.move(*moves[event.key])
        elif event.key == "tab" and (row, column) != (self.rows - 1, self.columns - 1):
            self.move(0, 1)
        elif event.key == "shift+tab" and (row, column) != (0, 0):
            self.move(0, -1)
        elif event.key == "backspace":
            self._edit(self.texts[row][column][:-1])
        elif event.key == "delete":
            self._edit("")
        elif event.key == "enter":
            self.post_message(self.Submitted())
        elif event.character is not None and event.is_printable:
            character = normalise(event.character)
            kept = self._kept()
            if character and _cell_text(kept + character):
                self._edit(kept + character)
            else:  # a letter, `[`, `^`…: the learner is writing a whole answer (`2*x`), not a number:
                # what the cell holds so far goes along with the key to the whole-answer field
                start, self.texts[row][column] = kept, ""
                if event.character == "[":  # a list starts a whole answer of its own: the cell's number is not part of it
                    start = ""
                if self.marks is not None:
                    self.marks[row][column] = None
                self.forwarding = True  # until the learner comes back to the grid
                self.post_message(self.TypedElsewhere(start + event.character))
        else:
            return  # Tab leaves the last cell; Escape and function keys go to the screen
        event.stop()
        event.prevent_default()
        self.refresh(layout=True)

    def _kept(self) -> str:
        """What typing adds to in the cell under the cursor: its text, unless the last check marked it wrong; a
        wrong number is typed over, as a spreadsheet cell is (Backspace still edits it)."""
        row, column = self.cursor
        return "" if self.marks is not None and self.marks[row][column] is False else self.texts[row][column]

    def _edit(self, text: str) -> None:
        """Change the cell under the cursor; its mark from the last check no longer applies."""
        row, column = self.cursor
        self.texts[row][column] = text[:MAX_LENGTH]
        if self.marks is not None:
            self.marks[row][column] = None
        self.post_message(self.Edited())

    def on_paste(self, event: events.Paste) -> None:
        """A number goes into the cell; a list or a printout is a whole answer."""
        event.stop()
        text = normalise(event.text).strip()
        if text and _cell_text(text):
            self._edit(self._kept() + text)
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
            extra = 1 if self._shows_values(row) else 0
            if line <= extra:
                break
            line -= 1 + extra
        self.cursor = (row, max(column, 0))
        self.focus()
        self.refresh()

    def on_focus(self) -> None:
        self.forwarding = False
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
        return self.readings()[0]

    def readings(self):
        """The typed numbers, and the half unit and decimals each was typed with (see `Reading`)."""
        import numpy as np

        numbers = np.empty((self.rows, self.columns))
        half = np.zeros((self.rows, self.columns))
        decimals = np.full((self.rows, self.columns), -1, dtype=np.int64)
        for row in range(self.rows):
            for column in range(self.columns):
                try:
                    numbers[row, column], half[row, column], decimals[row, column] = read_cell(self.texts[row][column])
                except AnswerFormatError:
                    self.cursor = (row, column)
                    self.refresh()
                    raise
        return numbers.reshape(self.shape), half.reshape(self.shape), decimals.reshape(self.shape)

    def mark(self, cells_ok, expected=None) -> None:
        """Mark each cell right (True), wrong (False) or not checked (None); with `expected` (the answer
        shown), wrong cells get the correct value under them."""
        import numpy as np

        marks = np.asarray(cells_ok, dtype=object).reshape(self.rows, self.columns).tolist()
        self.marks = [[None if mark is None else bool(mark) for mark in row] for row in marks]
        self.expected = (None if expected is None
                         else np.asarray(expected, dtype=float).reshape(self.rows, self.columns).tolist())
        self.refresh(layout=True)

    def clear_marks(self) -> None:
        self.marks = self.expected = None
        self.refresh(layout=True)


def _tail(text: str, width: int) -> str:
    """A cell's text in `width` characters: a longer one shows its end (where it is typed) behind an ellipsis, so that
    `6.6667e-01` never reads as `6667e-01`."""
    return text if len(text) <= width else "…" + text[-(width - 1):]


def _correct_value(value: float) -> str:
    """`→ 0.0819` under a wrong cell, in a cell's width: a longer value drops the arrow, then digits (`-2.07e+04`),
    never its end (`→ -1.2345e-05` was cut to `→ -1.2345`, another number)."""
    for shown in (f"→ {format_cell(value)}", format_cell(value), *(f"{value:.{digits}g}" for digits in (4, 3, 2, 1))):
        if len(shown) <= CELL_WIDTH:
            return shown
    return f"{value:.0e}"
