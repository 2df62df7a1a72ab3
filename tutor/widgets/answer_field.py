"""The whole-answer field: a pasted multi-line printout arrives whole.

Textual's `Input` keeps only the first line of a paste, so a 2-D tensor copied from PyTorch's output
(`tensor([[1., 2.],` / `[3., 4.]])`) would be cut to an unclosed bracket; here the lines are joined.
"""
from __future__ import annotations

from textual import events
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
