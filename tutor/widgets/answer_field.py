"""The whole-answer field: a pasted multi-line printout arrives whole.

Textual's `Input` keeps only the first line of a paste, so a 2-D tensor copied from PyTorch's output
(`tensor([[1., 2.],` / `[3., 4.]])`) would be cut to an unclosed bracket; here the lines are joined. A paste
longer than the field leaves the cursor, at its end, in view (Textual's `Input` does not scroll when the first
value an empty field gets is longer than it is wide: a long printout pasted showed its beginning, the cursor off screen).
"""
from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.geometry import Region
from textual.widgets import Input

from tutor.answer_input import one_line


class AnswerField(Input):
    def on_paste(self, event: events.Paste) -> None:
        event.prevent_default()  # Input's own paste handler keeps the first line only
        event.stop()
        text = one_line(event.text)
        if not text:
            return
        selection = self.selection
        if selection.is_empty:
            self.insert_text_at_cursor(text)
        else:
            self.replace(text, *selection)
        self.show_cursor()

    def show_cursor(self) -> None:
        """Scroll the field so that its cursor is in view (its value is one line: no tabs to expand)."""
        column = cell_len(self.value[:self.cursor_position])
        self.scroll_to_region(Region(column, 0, 1, 1), force=True, animate=False)
