"""The answer editor for error and choice steps, True/False questions: a list of options."""
from __future__ import annotations

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option


class ChoiceList(OptionList):
    """Options whose marks the lesson screen sets after a check (✓ correct, ✗ chosen and wrong)."""

    def __init__(self, labels: list[Text | str], **kwargs) -> None:
        self._labels = [Text(label) if isinstance(label, str) else label for label in labels]
        super().__init__(*self._build({}), **kwargs)

    def _build(self, marks: dict[int, str]) -> list[Option]:
        options = []
        for index, label in enumerate(self._labels):
            mark = marks.get(index, " ")
            style = {"✓": "bold green", "✗": "bold red"}.get(mark, "")
            options.append(Option(Text.assemble((f"{mark} ", style), label), id=str(index)))
        return options

    def mark(self, correct: int | None, chosen: int | None) -> None:
        """Mark the right option and, if different, the learner's wrong choice."""
        marks = {}
        if chosen is not None:
            marks[chosen] = "✗"
        if correct is not None:
            marks[correct] = "✓"
        highlighted = self.highlighted
        self.set_options(self._build(marks))
        self.highlighted = highlighted
