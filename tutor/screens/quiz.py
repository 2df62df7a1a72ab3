"""The quiz view: a stream of generated questions, each answered in the same `StepView` as a lesson step.

A quiz question is a one-step lesson (`tutor.quiz.Question.lesson`) whose answer the engine has
already computed. `tutor.practice.QuizPractice` submits the first verdict of each question to the
`QuizSession` (which records the attempt and reviews the concepts' FSRS cards at once); the learner
may still retry until right, or show the answer, without changing that record. After the last
question the app shows the summary. This screen imports no other page screen.
"""
from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Header

from lessons.glossary import concept_label
from tutor.i18n import t
from tutor.practice import QuizPractice
from tutor.widgets.footer import TutorFooter
from tutor.widgets.step_actions import StepActions
from tutor.widgets.step_progress import StepProgress
from tutor.widgets.step_view import StepView


class QuizScreen(StepActions, Screen[None]):
    """Enter checks (then moves on); `h` hint, `s` show the answer, `e` explanation, `n` next question,
    Esc leaves (asking first: the questions not yet answered are dropped)."""

    CSS_PATH = Path(__file__).parent.parent / "styles" / "lesson.tcss"

    BINDINGS = [
        Binding("escape", "back", "back"),
        Binding("enter", "primary", show=False),
        Binding("h", "hint", "hint"),
        Binding("s", "show_answer", "show_answer"),
        Binding("e", "explain", "explain"),
        Binding("n", "next", "next_question"),
        Binding("r", "retry", "retry", show=False),
    ]

    def __init__(self, session, learner_seed: str = "") -> None:
        super().__init__()
        self.session = session
        self.practice = QuizPractice(session, learner_seed)
        self.practice.load(session.next_question())
        self.states: dict = {}

    @property
    def question(self):
        return self.practice.question

    @property
    def outcomes(self) -> list[str]:
        return self.practice.outcomes

    def compose(self) -> ComposeResult:
        yield Header()
        yield StepProgress(id="progress")
        view = StepView(self.practice, self.states, id="body")
        view.continue_key = "quiz_next_hint"
        yield view
        yield TutorFooter()

    async def on_mount(self) -> None:
        await self.show_step()

    @property
    def view(self) -> StepView:
        return self.query_one("#body", StepView)

    @property
    def step(self):
        return self.question.step

    @property
    def state(self):
        return self.view.state

    async def show_step(self, index: int = 0, remember: bool = True) -> None:
        """Lay out the current question (also after a language switch: what was typed is kept)."""
        lang = self.app.lang
        self.sub_title = f"{t('quiz_title', lang)} · {', '.join(concept_label(c, lang) for c in self.question.concepts)}"
        self._show_progress()
        await self.view.show(0, remember=remember)
        self.refresh_bindings()

    def _show_progress(self) -> None:
        marks = self.outcomes + [None] * (self.session.count - len(self.outcomes))
        position = min(self.session.answered - (0 if self.session.current else 1), self.session.count - 1)
        self.query_one("#progress", StepProgress).show(max(position, 0), marks, self.app.lang)

    # ------------------------------------------------------------------ messages from the step view

    def on_step_view_answered(self, event: StepView.Answered) -> None:
        self._show_progress()
        self.refresh_bindings()

    async def on_step_view_continue(self, event: StepView.Continue) -> None:
        await self.action_next()

    # ------------------------------------------------------------------ actions

    async def action_primary(self) -> None:
        if self.state.solved:
            await self.action_next()

    def action_explain(self) -> None:
        if self.question.answer is None or self.step.kind != "predict":
            return
        if not self.state.solved:
            self.notify(t("answer_first", self.app.lang))
            return
        self.app.open_explanation(self.question.lesson, self.step, self.question.answer, self.practice.source(0))

    async def action_next(self) -> None:
        if not self.state.attempted:
            self.notify(t("quiz_answer_first", self.app.lang))
            return
        from tutor.quiz import QuizError

        try:
            question = self.session.next_question()
        except QuizError as error:  # every template left failed: end early, answers so far are kept
            self.notify(t("quiz_stopped", self.app.lang, reason=error), severity="error", timeout=10)
            question = None
        if question is None:
            self.app.show_quiz_summary(self.session)
            return
        self.practice.load(question)
        self.states.clear()  # every question starts fresh (questions may share a step id)
        await self.show_step(0, remember=False)

    def _store_failed(self, error) -> None:
        self.app.notify(t("progress_unavailable", self.app.lang, reason=error), severity="error", timeout=10)
        self.dismiss()

    def on_step_view_record_failed(self, event: StepView.RecordFailed) -> None:
        self._store_failed(event.error)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Show the answer only before it is over; next only once the question is answered."""
        if not self.is_mounted or not self.query("#body"):
            return True
        if action == "show_answer":
            return None if self.state.solved else True
        if action == "next":
            return True if self.state.attempted else None
        if action == "explain":
            if self.step.kind != "predict":
                return False
            return True if self.state.solved else None
        if action == "hint":
            return bool(self.step.hints)
        return True

    async def action_back(self) -> None:
        """Esc leaves a field first, then the quiz — asking first while questions are left."""
        if self.in_field:
            self.view.focus()
            return

        def leave(confirmed: bool | None) -> None:
            if confirmed:
                self.dismiss()

        self.app.confirm(t("leave_quiz", self.app.lang, count=self.session.count - self.session.answered), leave)

    def apply_language(self) -> None:
        self.call_later(self.show_step, 0)

    def course_changed(self) -> None:
        """A quiz question does not change when a lesson file does."""
