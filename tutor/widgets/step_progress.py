"""Where the learner is in a lesson or a quiz: "Step 3 of 8" (or "Question 3 of 8") and one mark per step,
coloured by outcome."""
from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from tutor.i18n import t
from tutor.themes import MUTED

# outcome -> (mark, style); steps not yet answered use the kind's own mark
_MARKS = {"correct": ("●", "green"), "wrong": ("●", "red"), "revealed": ("●", "yellow"), "read": ("●", "blue")}


class StepProgress(Static):
    """Redrawn by the lesson screen whenever the step or an outcome changes."""

    def show(self, index: int, outcomes: list[str | None], lang: str, *, counted: str = "step_of") -> None:
        """`counted` is the catalogue key that names what is counted: a lesson's steps, a quiz's questions."""
        text = Text(t(counted, lang, index=index + 1, total=len(outcomes)) + "  ")
        for position, outcome in enumerate(outcomes):
            mark, style = _MARKS.get(outcome or "", ("○", MUTED))
            if position == index:
                style += " reverse"
            text.append(mark, style=style)
        self.update(text)
