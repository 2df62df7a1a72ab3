"""The quiz view: a stream of generated questions, answered exactly like lesson steps.

A quiz question is a one-step lesson (`tutor.quiz.Question.lesson`) whose answer the engine has
already computed, so this screen is the lesson screen with a different source of steps: the
editor, the cell marks, hints, the explanation panels and the choice lists all come from
`LessonScreen`. What changes is where answers go (`QuizSession.submit`, which records the attempt
and reviews the concepts' FSRS cards at once), that each question is answered once, and that the
last answer leads to the summary.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime

from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll

from tutor.i18n import t
from tutor.screens.lesson import LessonScreen, StepState
from tutor.widgets.step_progress import StepProgress


def start_quiz(app, *, seed: int | None = None, count: int = 10, now: Callable[[], datetime] | None = None) -> None:
    """Push a quiz screen for `count` questions (reproducible with `seed`), or tell why it cannot start."""
    from tutor.progress.model import utc_now
    from tutor.progress.scheduler import ConceptScheduler
    from tutor.quiz import QuizError, QuizSession, builtin_templates, lesson_templates

    if app.store is None:
        app.notify(t("quiz_unavailable", app.lang, reason=t("quiz_no_store", app.lang)), severity="error", timeout=10)
        return
    scheduler = ConceptScheduler(app.store, now=now or utc_now)
    templates = builtin_templates() + lesson_templates(app.course.lessons if app.course else ())
    try:
        session = QuizSession(scheduler, templates, count=count, seed=seed)
        screen = QuizScreen(session)
    except (QuizError, ValueError) as error:
        app.notify(t("quiz_unavailable", app.lang, reason=error), severity="error", timeout=10)
        return
    app.push_screen(screen)


class QuizScreen(LessonScreen):
    """Enter checks (then moves on); `h` hint, `s` skip, `e` explanation, `n` next question, Esc leaves."""

    BINDINGS = [
        Binding("n", "next", "next_question"),
    ]

    def __init__(self, session) -> None:
        question = session.next_question()
        super().__init__(question.lesson, 0)
        self.session = session
        self.outcomes: list[str] = []  # this session's outcomes, in order, for the progress marks
        self._verdict_shown = False  # keep the feedback scrolled into view while it is laid out
        self._load(question)

    def _load(self, question) -> None:
        """Make `question` the step on show (its answer is already known: no second run)."""
        self.question = question
        self.lesson = question.lesson
        self.index = 0
        self.states = {question.step.id: StepState()}
        self._builder = None
        self._answers = {question.step.id: question.answer}

    def on_mount(self) -> None:
        # LessonScreen.on_mount lays out the question; this only follows the body's size.
        self.watch(self.query_one("#body"), "virtual_size", self._body_resized, init=False)

    def restore_states(self) -> None:
        """A quiz question is always fresh, even if the same seed asked it in an earlier session."""

    async def show_step(self, index: int = 0) -> None:
        """Lay out the current question (also after a language switch: the answer given is kept)."""
        lang = self.app.lang
        self.sub_title = f"{t('quiz_title', lang)} · {', '.join(self.question.concepts)}"
        self._show_progress()
        body = self.query_one("#body", VerticalScroll)
        self._verdict_shown = False
        await body.remove_children()
        await body.mount_all(list(self._step_widgets(lang)))
        body.scroll_home(animate=False)
        if self.state.attempted:
            self._feedback(Text(t("quiz_answered", lang)), "-info")
            body.focus()
        else:
            (self._editor() or body).focus()
        self.refresh_bindings()

    def _show_progress(self) -> None:
        marks = self.outcomes + [None] * (self.session.count - len(self.outcomes))
        position = min(self.session.answered - (0 if self.session.current else 1), self.session.count - 1)
        self.query_one("#progress", StepProgress).show(max(position, 0), marks, self.app.lang)

    # ------------------------------------------------------------------ answers go to the session

    def _record(self, answer_text: str | None, outcome: str) -> None:
        from tutor.progress.model import ProgressError

        state = self.state
        state.outcome, state.attempted = outcome, True
        try:
            self.session.submit(outcome, answer=answer_text, hints_used=state.hints_shown,
                                duration_ms=int((time.monotonic() - state.started) * 1000))
        except ProgressError as error:
            self.app.notify(t("progress_unavailable", self.app.lang, reason=error), severity="error", timeout=10)
            self.dismiss()
            return
        self.outcomes.append(outcome)
        self._show_progress()
        self.query_one("#body").focus()  # out of the editor, so n / e / h work as keys at once
        self.refresh_bindings()

    def _feedback(self, message: Text, kind: str) -> None:
        if kind in ("-correct", "-wrong", "-skipped"):
            message.append("\n" + t("quiz_next_hint", self.app.lang), style="dim")
        super()._feedback(message, kind)
        self._verdict_shown = kind in ("-correct", "-wrong", "-skipped")

    def _body_resized(self) -> None:
        """Keep the verdict in view while it is laid out (at 80x24 it lands below the editor)."""
        if self._verdict_shown:
            body, feedback = self.query_one("#body"), self.query_one("#feedback")
            bottom = feedback.virtual_region_with_margin.bottom
            body.scroll_to(y=max(body.scroll_y, bottom - body.scrollable_content_region.height), animate=False)

    def action_check(self) -> None:
        """Enter in the editor: check the first time, go on to the next question after that."""
        if self.state.attempted:
            self.call_later(self.action_next)
        else:
            super().action_check()

    def _check_choice(self, chosen: int) -> None:
        if self.state.attempted:
            self.call_later(self.action_next)
        else:
            super()._check_choice(chosen)

    def action_skip(self) -> None:
        if not self.state.attempted:
            super().action_skip()

    async def action_primary(self) -> None:
        if self.state.attempted:
            await self.action_next()

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
            from tutor.screens.quiz_summary import QuizSummaryScreen

            summary = self.session.summary()
            self.app.switch_screen(QuizSummaryScreen(summary, count=self.session.count, now=self.session.scheduler.now))
            return
        self._load(question)
        await self.show_step(0)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """One answer per question: no retry, no previous step; skip only before answering."""
        if action in ("retry", "previous"):
            return False
        if action == "skip":
            return not self.state.attempted
        if action == "next":
            return True if self.state.attempted else None
        return super().check_action(action, parameters)

    def course_changed(self) -> None:
        """A quiz question does not change when a lesson file does."""
