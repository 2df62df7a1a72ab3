"""The key actions a step view answers to, shared by the lesson and the quiz screens.

Both screens show one `StepView` as `self.view`; hint, show-answer and retry are the view's own
business, so the screens only forward them (and show-answer changes which keys the footer lists).
"""
from __future__ import annotations


class StepActions:
    """Mixed into a Screen that has a `view` (a StepView)."""

    def action_hint(self) -> None:
        self.view.hint()

    def action_show_answer(self) -> None:
        self.view.show_answer()
        self.refresh_bindings()

    def action_retry(self) -> None:
        self.view.retry()
