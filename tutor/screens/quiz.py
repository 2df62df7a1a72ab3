"""The quiz view: a stream of generated questions, each answered in the same `StepView` as a lesson step.

A quiz question is a one-step lesson (`tutor.quiz.Question.lesson`) whose answer the engine has
already computed. `tutor.practice.QuizPractice` submits the first verdict of each question to the
`QuizSession` (which records the attempt and reviews the concepts' FSRS cards at once); the learner
may still retry until right, or show the answer, without changing that record. After the last
question the app shows the summary. The screen is drawn at once; each question is made off the event loop (it waits
for the snippet worker, which may be starting or busy), so keys work meanwhile. Every question takes the same path:
when it has not come within PREPARING_DELAY, the screen says it prepares it (in place of the question answered before
it, whose keys go with it); a question that comes at once never flashes that notice first.
This screen imports no other page screen.
"""
from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Static

from lessons.glossary import concept_label
from tutor.i18n import error_said, t
from tutor.practice import Outcome, QuizPractice
from tutor.screens.practice import PracticeScreen
from tutor.widgets.step_progress import StepProgress
from tutor.widgets.step_view import StepView

PREPARING_DELAY = 0.25  # seconds: a question sooner than this needs no "Preparing…" (it would only flash)


class QuizScreen(PracticeScreen):
    """A session's questions (`PracticeScreen`'s keys, `n` next question); Esc asks first: the questions not yet
    answered are dropped."""

    BINDINGS = [Binding("n", "next", "next_question")]
    continue_key = "quiz_next_hint"

    def __init__(self, session, learner_seed: str = "") -> None:
        super().__init__()
        self.session = session
        self.practice = QuizPractice(session, learner_seed)
        self.practice.load(None)
        self.states: dict = {}
        self.drawing = False  # a question is being made

    @property
    def question(self):
        return self.practice.question

    @property
    def outcomes(self) -> list[Outcome]:
        return self.practice.outcomes

    def on_mount(self) -> None:
        self.sub_title = t("quiz_title", self.app.lang)
        self._show_progress()
        self._ask_next()

    def _preparing_text(self) -> str:
        return t("quiz_preparing" if self.question is None else "quiz_preparing_next", self.app.lang)

    def _say_preparing(self) -> None:
        """The question has not come at once (the worker is starting, or busy): say it is on its way, in place of the
        question answered before it (its keys go with it: `steps_shown` is False while the notice is up)."""
        if self.drawing:
            self.view.remove_children()
            self.view.mount(Static(self._preparing_text(), id="preparing"))
            self.sub_title = t("quiz_title", self.app.lang)  # the answered question's concepts went with it
            self.refresh_bindings()

    def _ask_next(self) -> None:
        """Make the next question in a Textual worker; until it is shown, `n` waits, and after PREPARING_DELAY the
        screen says it prepares it."""
        self.drawing = True
        self.refresh_bindings()
        self._preparing = self.set_timer(PREPARING_DELAY, self._say_preparing)
        self.run_worker(self._next_question(), name="next-question", exclusive=True)

    async def _next_question(self) -> None:
        """The next question: the session reads the progress store here, on the store's thread, and makes the question
        in a daemon thread, since it asks the snippet worker, which may be starting or busy preloading explanations
        for seconds: meanwhile the screen answers keys (Esc leaves). None can be made: the first question says why
        and goes back to the course, a later one ends the quiz with its summary."""
        from tutor.background import in_thread
        from tutor.quiz import QuizError

        session = self.session
        order = session.review_order()
        try:
            question = session.ask(await in_thread(lambda: session.draw(order), name="quiz-question"))
        except QuizError as error:
            self._preparing.stop()
            if self.question is None:
                self.app.notify(t("quiz_unavailable", self.app.lang, reason=error.said(self.app.lang)), severity="error",
                                timeout=10)
                self.dismiss()
            else:  # every template left failed: end early, answers so far are kept
                self.notify(t("quiz_stopped", self.app.lang, reason=error.said(self.app.lang)), severity="error", timeout=10)
                self.app.show_quiz_summary(session)
            return
        self._preparing.stop()
        self.drawing = False
        self.practice.load(question)
        self.states.clear()  # every question starts fresh (questions may share a step id)
        await self.show_step(0, remember=False)

    @property
    def step(self):
        return self.question.step

    async def show_step(self, index: int = 0, remember: bool = True) -> None:
        """Lay out the current question (also after a language switch: what was typed is kept)."""
        lang = self.app.lang
        concepts = t("list_joiner", lang).join(concept_label(c, lang) for c in self.question.concepts)
        self.sub_title = f"{t('quiz_title', lang)} · {concepts}"
        self._show_progress()
        await self.view.show(0, remember=remember)
        self.refresh_bindings()

    def steps_shown(self) -> bool:
        return self.question is not None and not self.query("#preparing") and super().steps_shown()

    def _show_progress(self) -> None:
        marks = self.outcomes + [None] * (self.session.count - len(self.outcomes))
        position = min(self.session.answered - (0 if self.session.current else 1), self.session.count - 1)
        self.query_one("#progress", StepProgress).show(max(position, 0), marks, self.app.lang, counted="question_of")

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
        if self.drawing:
            return
        if not self.state.attempted:
            self.notify(t("quiz_answer_first", self.app.lang))
            return
        if self.session.finished:
            self.app.show_quiz_summary(self.session)
            return
        self._ask_next()

    def _store_failed(self, error) -> None:
        self.app.notify(t("progress_unavailable", self.app.lang, reason=error_said(error, self.app.lang)),
                        severity="error", timeout=10)
        self.dismiss()

    def on_step_view_record_failed(self, event: StepView.RecordFailed) -> None:
        self._store_failed(event.error)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Show the answer only before it is over; next only once the question is answered; while the first question
        is prepared, only leaving; while a later one is, not next (once the notice says so, only leaving)."""
        if not self.steps_shown():
            return action not in ("primary", "hint", "show_answer", "explain", "retry", "next")
        if action == "show_answer":
            return None if self.state.solved else True
        if action == "next" and self.drawing:
            return None
        if action == "next":
            return True if self.state.attempted else None
        if action == "explain":
            if self.step.kind != "predict":
                return False
            return True if self.state.solved else None
        if action == "hint":
            return bool(self.step.hints)
        return True

    def leave(self) -> None:
        """Back to the course, asking first once a question is shown (the questions left are dropped); at once
        before that, when there is nothing to lose."""
        if self.question is None:
            self.dismiss()
            return
        self.leave_after_asking(t("leave_quiz", self.app.lang, count=self.session.count - self.session.answered))

    def apply_language(self) -> None:
        if self.question is None or self.query("#preparing"):  # still preparing the first question, or a later one
            self.sub_title = t("quiz_title", self.app.lang)
            self._show_progress()
            for preparing in self.query("#preparing").results(Static):
                preparing.update(self._preparing_text())
            return
        self.call_later(self.show_step, 0)

    def course_changed(self) -> None:
        """A quiz question does not change when a lesson file does."""
