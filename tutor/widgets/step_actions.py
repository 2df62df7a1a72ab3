"""The key actions a step view answers to, shared by the lesson and the quiz screens.

Both screens show one `StepView` as `self.view`; hint, show-answer and retry are the view's own
business, so the screens only forward them (and show-answer changes which keys the footer lists).
"""
from __future__ import annotations

from textual.widgets import Input, OptionList

from tutor.widgets.answer_grid import AnswerGrid


class StepActions:
    """Mixed into a Screen that has a `view` (a StepView)."""

    @property
    def in_field(self) -> bool:
        """Any field has focus, a choice list included: Esc leaves it before it leaves the screen."""
        return isinstance(self.focused, (Input, OptionList, AnswerGrid))

    def action_hint(self) -> None:
        self.view.hint()

    def action_show_answer(self) -> None:
        self.view.show_answer()
        self.refresh_bindings()

    def action_retry(self) -> None:
        self.view.retry()
