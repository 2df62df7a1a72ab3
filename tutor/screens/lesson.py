"""The lesson view: one step at a time, in a `StepView`, with the lesson's progress marks above it
(and, on the first step, the lesson's credit line: the article it is based on).

The correct answer always comes from `lessons.answers.compute_answer` (the engine runs the step's
program, through `tutor.practice.LessonPractice`); the step view reads what the learner typed,
grades it and shows the verdict; this screen moves between steps, keeps the progress marks and
asks the app to open the explanation. It imports no other page screen.
"""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from tutor.i18n import t
from tutor.practice import GRADED, LessonPractice, Outcome, StepState
from tutor.screens.practice import PracticeScreen
from tutor.widgets.inline_text import inline_markdown
from tutor.widgets.step_progress import StepProgress

__all__ = ["GRADED", "LessonScreen", "StepState"]


class LessonScreen(PracticeScreen):
    """A lesson's steps in order (`PracticeScreen`'s keys, `n`/`p` next/previous); Esc asks first when typed
    work would be lost."""

    BINDINGS = [
        Binding("n", "next", "next"),
        Binding("p", "previous", "previous", show=False),
    ]

    def __init__(self, lesson, index: int = 0, practice=None) -> None:
        super().__init__()
        self.lesson = lesson
        self.index = index
        self.seen: set[str] = set()  # the ids of the steps shown on this screen: a read step shown has been read
        self.answered_before: set[str] = set()  # the steps answered in earlier sessions (the read ones before were read)
        self.states: dict[str, StepState] = {}
        self.practice = practice

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        if self.practice is None:
            self.practice = LessonPractice(self.lesson, self.app.record_attempt, self.app.learner_seed)
        yield from super().compose()

    def compose_above_step(self) -> ComposeResult:
        yield Static(id="source")

    async def on_mount(self) -> None:
        self.restore_states()
        await self.show_step(self.index)

    def restore_states(self) -> None:
        """Outcomes from earlier sessions: the progress marks show them and the explanation opens."""
        for attempt in self.app.attempts(self.lesson.id):
            self.answered_before.add(attempt.step_id)
            state = self.states.setdefault(attempt.step_id, StepState())
            state.attempted = True
            if state.outcome is not Outcome.CORRECT:
                state.outcome = Outcome(attempt.outcome)

    @property
    def step(self):
        return self.lesson.steps[self.index]

    @property
    def answer(self):
        return self.view.answer

    async def show_step(self, index: int, remember: bool = True) -> None:
        """Lay out step `index` (also after a language switch or a lesson reload: `remember` False
        when the step view's fields no longer belong to the step it shows)."""
        self.index = max(0, min(index, len(self.lesson.steps) - 1))
        self.sub_title = self.lesson.title.get(self.app.lang)
        self.app.save_position(self.lesson.id, self.step.id)
        self._show_progress()
        self._show_source()
        last = self.index == len(self.lesson.steps) - 1
        self.view.continue_key = "enter_finish" if last else "enter_continue"
        await self.view.show(self.index, remember)
        self.refresh_bindings()

    def _show_progress(self) -> None:
        """A step's mark fills once the learner has done it: answered, or (a read step) shown here or passed in an
        earlier session on the way to a step answered then; opening the lesson further on (`--open LESSON:6`,
        resuming) and answering there reads nothing."""
        self.seen.add(self.step.id)
        steps = self.lesson.steps
        passed = max((i for i, s in enumerate(steps) if s.id in self.answered_before), default=-1)
        outcomes = [("read" if s.kind == "read" and (s.id in self.seen or i < passed)
                     else self.states[s.id].outcome if s.id in self.states else None)
                    for i, s in enumerate(steps)]
        self.query_one("#progress", StepProgress).show(self.index, outcomes, self.app.lang)

    def _show_source(self) -> None:
        """The credit goes with the lesson's first screen, as a book's goes on its title page."""
        credit = self.query_one("#source", Static)
        source = self.lesson.source
        credit.display = self.index == 0 and source is not None
        if credit.display:
            credit.update(inline_markdown(t("lesson_source", self.app.lang, source=source.get(self.app.lang))))

    # ------------------------------------------------------------------ actions

    async def action_primary(self) -> None:
        """Enter outside an editor: continue past a read step or a finished one."""
        if self.step.kind not in GRADED or self.state.solved or self.answer is None:
            await self.action_next()

    async def action_next(self) -> None:
        if self.index + 1 < len(self.lesson.steps):
            await self.show_step(self.index + 1)
            return
        lang = self.app.lang
        progress = self.app.lesson_progress(self.lesson)
        if progress is not None and str(progress.status) == "done":
            # back to the course, where the lesson now shows as done: the notice covers no options there
            self.app.notify(t("lesson_done", lang, title=self.lesson.title.get(lang)))
            self.dismiss()
        else:
            left = progress.total - len(progress.solved) if progress is not None else 0
            self.notify(t("lesson_last_step", lang, count=left))

    async def action_previous(self) -> None:
        if self.index > 0:
            await self.show_step(self.index - 1)

    def action_explain(self) -> None:
        answer = self.answer
        if answer is None or self.step.kind != "predict":
            return
        if not self._explainable():
            self.notify(t("answer_first", self.app.lang))
            return
        self.app.open_explanation(self.lesson, self.step, answer, self.practice.source(self.index))

    def _explainable(self) -> bool:
        """The explanation shows the answer: only once the step is over (now or in an earlier session)."""
        state = self.state
        return state.solved or state.outcome in (Outcome.CORRECT, Outcome.REVEALED)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide keys that do nothing on this step (None greys them out in the footer)."""
        if not self.steps_shown():
            return True
        graded = self.step.kind in GRADED and self.answer is not None
        if action == "hint":
            return graded and bool(self.step.hints)
        if action == "retry":
            return graded
        if action == "show_answer":
            return None if graded and self.state.solved else graded
        if action == "explain":
            if self.step.kind != "predict" or not graded:
                return False
            return True if self._explainable() else None
        if action == "previous":
            return self.index > 0
        return True

    def leave(self) -> None:
        """Back to the course, asking first when typed work would be lost."""
        if self.view.has_unchecked_work():
            self.leave_after_asking(t("leave_unchecked", self.app.lang))
        else:
            self.dismiss()

    # ------------------------------------------------------------------ app notifications

    def apply_language(self) -> None:
        self.call_later(self.show_step, self.index)

    def course_changed(self) -> None:
        """The course was reloaded. The learner stays on their step by its id (a step inserted above
        does not move them; a deleted one leaves them on the step after it), under the lesson's new
        id if its author renamed it (the app moved the progress). A broken edit is not shown: the old
        version stays until the file loads again. A lesson gone from the course returns to it."""
        fresh = self.app.lesson(self.lesson.id) or self.app.lesson_at(self.lesson.path)
        if fresh is None:
            if self.app.broken_error(self.lesson.path) is None:
                self.notify(t("lesson_removed", self.app.lang, title=self.lesson.title.get(self.app.lang)))
                self.call_later(self._leave)
            return
        if fresh != self.lesson:
            self.call_later(self._follow, fresh)

    async def _follow(self, fresh) -> None:
        """Show the new version of the lesson, on the learner's step (found by its id)."""
        index, notice = step_after_reload(self.lesson, fresh, self.index)
        self.view.remember_typing()
        self.lesson = fresh
        self.practice.lesson = fresh
        self.practice.forget()
        self.index = index
        if notice is not None:
            self.notify(t(notice, self.app.lang), timeout=8)
        await self.show_step(index, remember=False)

    def _leave(self) -> None:
        """Close this screen and whatever is shown over it (an explanation, help, a dialog)."""
        while self in self.app.screen_stack and self.app.screen is not self:
            self.app.pop_screen()
        if self.app.screen is self:
            self.dismiss()


def step_after_reload(old, new, index: int) -> tuple[int, str | None]:
    """Where a learner on step `index` of lesson `old` goes in its new version `new`: the same step id;
    if that step is gone, the step that now follows the last remaining one before it (the first step,
    or the last one when nothing follows), with the key of the notice to show."""
    ids = [step.id for step in new.steps]
    current = old.steps[index].id
    if current in ids:
        return ids.index(current), None
    before = [ids.index(step.id) for step in old.steps[:index] if step.id in ids]
    target = max(before) + 1 if before else 0
    if target < len(ids):
        return target, "step_removed"
    return len(ids) - 1, "step_removed_last"
