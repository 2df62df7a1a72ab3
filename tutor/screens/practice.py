"""What a lesson and a quiz screen share: a `StepView` under the progress marks, the step's keys, leaving.

`LessonScreen` and `QuizScreen` differ in where steps come from (a lesson's list, a quiz session's next
question), which keys a step allows and what leaving asks; the layout, the forwarding of hint, show-answer
and retry to the view, the replies to the view's messages and the Esc rule (a field first, then the screen)
are here, once.
"""
from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Header, Input, OptionList

from tutor.widgets.answer_grid import AnswerGrid
from tutor.widgets.footer import TutorFooter
from tutor.widgets.step_progress import StepProgress
from tutor.widgets.step_view import StepView


class PracticeScreen(Screen[None]):
    """Enter checks (and continues once a step is over); `h` hint, `s` show the answer, `e` explanation,
    `n` next, Esc back. Letters are commands only while no editor has focus. A subclass supplies `practice`,
    `states`, `show_step`, `_show_progress`, `action_next`, `action_explain`, `check_action` and `leave`."""

    CSS_PATH = Path(__file__).parent.parent / "styles" / "lesson.tcss"

    BINDINGS = [
        Binding("escape", "back", "back"),
        Binding("enter", "primary", show=False),
        Binding("h", "hint", "hint"),
        Binding("s", "show_answer", "show_answer"),
        Binding("e", "explain", "explain"),
        Binding("r", "retry", "retry", show=False),
    ]

    continue_key = "enter_continue"  # the hint under a finished step's verdict (an i18n key)

    def compose(self) -> ComposeResult:
        yield Header()
        yield StepProgress(id="progress")
        yield from self.compose_above_step()
        view = StepView(self.practice, self.states, id="body")
        view.continue_key = self.continue_key
        yield view
        yield TutorFooter()

    def compose_above_step(self) -> ComposeResult:
        """Widgets between the progress marks and the step (none by default)."""
        yield from ()

    @property
    def view(self) -> StepView:
        return self.query_one("#body", StepView)

    @property
    def state(self):
        return self.view.state  # the view shows this screen's step, from the same practice and states

    @property
    def in_field(self) -> bool:
        """Any field has focus, a choice list included: Esc leaves it before it leaves the screen."""
        return isinstance(self.focused, (Input, OptionList, AnswerGrid))

    def steps_shown(self) -> bool:
        """The step view is mounted (before that, `check_action` allows every key)."""
        return self.is_mounted and bool(self.query("#body"))

    # ------------------------------------------------------------------ messages from the step view

    def on_step_view_answered(self, event: StepView.Answered) -> None:
        self._show_progress()
        self.refresh_bindings()

    async def on_step_view_continue(self, event: StepView.Continue) -> None:
        await self.action_next()

    # ------------------------------------------------------------------ keys

    def action_hint(self) -> None:
        self.view.hint()

    def action_show_answer(self) -> None:
        self.view.show_answer()
        self.refresh_bindings()

    def action_retry(self) -> None:
        self.view.retry()

    async def action_back(self) -> None:
        """Esc leaves a field first (so letter keys work again), then the screen (`leave`)."""
        if self.in_field:
            self.view.focus()
            return
        self.leave()

    def leave_after_asking(self, question: str) -> None:
        """Leave once the learner confirms `question`."""
        def leave(confirmed: bool | None) -> None:
            if confirmed:
                self.dismiss()

        self.app.confirm(question, leave)
