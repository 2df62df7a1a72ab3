"""One step of a lesson or a quiz: its text, code cell, answer editor, feedback, hints, explanation.

The learner's loop lives here, the same for lessons and quizzes: predict → check → (wrong: the
wrong cells are marked, the values are not shown) → retry, with hints, until right — or ask to see
the answer, which is recorded as shown, not as right. Enter after the final verdict continues.
What differs per mode (where answers come from, which verdicts are recorded) is the `Practice`
object (`tutor.practice`). The view posts `StepView.Answered` after each recorded verdict and
`StepView.Continue` when the learner wants the next step; it never navigates itself.

Every input handler catches what it does not expect and shows it under the field, so no typed
text can end the app.
"""
from __future__ import annotations

import time

from rich.text import Text
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Input, OptionList, Static

from tutor.formatting import format_shape, format_value
from tutor.i18n import t
from tutor.practice import GRADED, Outcome, StepState
from tutor.themes import MUTED
from tutor.untrusted import plain, text
from tutor.widgets.answer_field import AnswerField
from tutor.widgets.answer_grid import AnswerGrid, grid_fits
from tutor.widgets.choice_list import ChoiceList
from tutor.widgets.hints import Hints
from tutor.widgets.markdown_text import MarkdownText
from tutor.widgets.snippet_cell import SnippetCell


class StepView(VerticalScroll, can_focus=True):
    """Shows step `index` of `practice.lesson`; `states` keeps what the learner did per step id."""

    class Answered(Message):
        """A verdict was recorded (`outcome`: correct, wrong or revealed)."""

        def __init__(self, view: StepView, index: int, outcome: Outcome) -> None:
            super().__init__()
            self.view = view
            self.index = index
            self.outcome = outcome

    class RecordFailed(Message):
        """The verdict could not be recorded (the progress store failed)."""

        def __init__(self, error: Exception) -> None:
            super().__init__()
            self.error = error

    class Continue(Message):
        """Enter after the final verdict (or on a read step): on to the next step."""

    def __init__(self, practice, states: dict[str, StepState] | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.practice = practice
        self.states: dict[str, StepState] = states if states is not None else {}
        self.index = 0
        self._order: list[int] = []

    # ------------------------------------------------------------------ what is on show

    @property
    def step(self):
        """The step on show (None while there is none yet: a quiz preparing its first question)."""
        lesson = self.practice.lesson
        return lesson.steps[self.index] if lesson is not None else None

    @property
    def state(self) -> StepState:
        return self.states.setdefault(self.step.id, StepState())

    @property
    def answer(self):
        answer, _problem = self.practice.answer(self.index)
        return answer

    @property
    def graded(self) -> bool:
        return self.step.kind in GRADED and self.answer is not None

    def editor(self):
        for selector in ("#grid", "#whole", "#choices"):
            found = self.query(selector)
            if found:
                return found.first()
        return None

    def has_unchecked_work(self) -> bool:
        """Typed text that has not been checked yet (leaving would lose it)."""
        if not self.graded or self.state.solved:
            return False
        self.remember_typing()
        typed = self.state.typed.strip()
        cells = any(text.strip() for row in (self.state.cells or []) for text in row)
        return bool(typed or cells) and self._current_text() != self.state.last_checked

    # ------------------------------------------------------------------ layout

    async def show(self, index: int, remember: bool = True) -> None:
        """Lay out step `index` afresh from its state (also after a language switch or a reload);
        what was typed on the step on show is kept in its state unless `remember` is False."""
        if remember and self.children and 0 <= self.index < len(self.practice.lesson.steps):
            self.remember_typing()
        self.index = max(0, min(index, len(self.practice.lesson.steps) - 1))
        self.state.started = time.monotonic()
        lang = self.app.lang
        await self.remove_children()
        await self.mount_all(list(self._widgets(lang)))
        self._restore(lang)
        self.scroll_home(animate=False)
        editor = self.editor()
        if editor is not None and not self.state.solved:
            editor.focus()
            self.call_after_refresh(self._scroll_into_view, editor)
        else:
            self.focus()
            if self.state.verdict is not None:
                self.call_after_refresh(self._scroll_into_view, self.query_one("#feedback"))

    def _widgets(self, lang: str):
        step = self.step
        yield MarkdownText(step.text.get(lang), id="step-text")
        answer, problem = self.practice.answer(self.index)
        if step.snippet is not None:
            yield self._snippet_cell(lang)
        if problem is not None:
            from tutor.problems import WorkerProblem

            message = (t("worker_unavailable", lang, reason=problem.reason) if isinstance(problem, WorkerProblem)
                       else t("answer_unavailable", lang, where=problem))
            yield Static(text(message), id="feedback", classes="-error")
            return
        if step.kind == "predict":
            before, _, after = t("predict_prompt", lang, expression="\0").replace("`", "").partition("\0")
            yield Static(Text.assemble(before, (plain(step.expression), "bold"), after), id="prompt")
            yield from self._predict_editor(answer, lang)
        elif step.kind in ("error", "choice"):
            if step.kind == "error":
                labels = [t("error_none", lang) if choice.is_none else choice.error for choice in step.choices]
            else:
                from tutor.widgets.inline_text import inline_markdown

                labels = [inline_markdown(option.text.get(lang)) for option in step.options]
            self._order = self.practice.choice_order(self.index, len(labels))
            yield ChoiceList([labels[i] for i in self._order], ids=self._order, id="choices")
        else:
            yield Static(t("read_continue", lang), id="feedback", classes="-info")
            return
        yield Static("", id="feedback")
        hints = Hints(id="hints")
        hints.display = False
        yield hints
        yield MarkdownText("", id="explanation")

    def _snippet_cell(self, lang: str) -> SnippetCell:
        """The code and its own output — for an error step only once it is over (it is the question)."""
        labels = {"no_output": t("no_output", lang), "earlier": t("earlier_output", lang)}
        step = self.step
        if step.kind == "error" and not self.state.solved:
            return SnippetCell(step.snippet, None, None, labels, id="snippet")
        output = self.practice.output(self.index)
        error = None
        if output.raised is not None:
            error = t("snippet_error", lang, error=output.raised.what(lang))
        return SnippetCell(step.snippet, output.own, error, labels, earlier=output.earlier, warnings=output.warnings,
                           id="snippet")

    def _predict_editor(self, answer, lang: str):
        from tutor.grading import holds_bools

        if holds_bools(answer):  # True/False values: no grid of numbers
            yield Static(Text(t("bools_hint", lang, shape=format_shape(answer.shape))), classes="editor-hint")
            yield AnswerField(placeholder=t("bools_placeholder", lang), id="whole", select_on_focus=False)
        elif answer.kind == "tensor":
            shape = format_shape(answer.shape)
            if grid_fits(answer.shape):
                yield Static(Text(t("tensor_hint", lang, shape=shape)), classes="editor-hint")
                yield AnswerGrid(answer.shape, id="grid")
            else:
                yield Static(Text(t("tensor_text_hint", lang, shape=shape)), classes="editor-hint")
            yield AnswerField(placeholder=t("whole_answer_placeholder", lang), id="whole", select_on_focus=False)
        elif answer.kind == "bool":
            yield ChoiceList(["True", "False"], ids=[0, 1], id="choices")
        elif answer.kind == "number":
            yield AnswerField(placeholder=t("number_placeholder", lang), id="whole", select_on_focus=False)
        elif answer.kind == "none":
            yield AnswerField(placeholder=t("none_placeholder", lang), id="whole", select_on_focus=False)
        else:
            yield AnswerField(placeholder=t("text_placeholder", lang), id="whole", select_on_focus=False)

    def _restore(self, lang: str) -> None:
        """Put back what the learner typed and the last verdict (after F2, a reload, or coming back)."""
        state = self.state
        whole = self.query("#whole")
        if whole and state.typed:
            whole.first(Input).value = state.typed
        grid = self.query("#grid")
        if grid:
            grid = grid.first(AnswerGrid)
            if state.cells is not None:
                grid.texts = [list(row) for row in state.cells]
            if state.marks is not None:
                grid.mark(state.marks, self.answer.value if state.revealed else None)
        choices = self.query("#choices")
        if choices:
            self._mark_choices()
        hints = [hint.get(lang) for hint in self.step.hints]
        if state.hints_shown and self.query("#hints"):
            self.query_one("#hints", Hints).show(hints, min(state.hints_shown, len(hints)), lang)
        if state.verdict is not None:
            self._show_verdict(lang)

    def remember_typing(self) -> None:
        state = self.state
        whole = self.query("#whole")
        if whole:
            state.typed = whole.first(Input).value
        grid = self.query("#grid")
        if grid:
            state.cells = [list(row) for row in grid.first(AnswerGrid).texts]

    def _scroll_into_view(self, widget) -> None:
        if widget.is_attached:
            self.scroll_to_widget(widget, animate=False, top=False)

    # ------------------------------------------------------------------ checking

    def _current_text(self) -> str:
        whole = self.query("#whole")
        text = whole.first(Input).value.strip() if whole else ""
        grid = self.query("#grid")
        if grid and not text:
            return repr(grid.first(AnswerGrid).texts)
        return text

    def _read(self, answer):
        """The learner's prediction as a Reading, and the text to record."""
        import numpy as np

        from tutor.answer_input import Reading
        from tutor.grading import read_prediction

        whole = self.query("#whole")
        text = whole.first(Input).value if whole else ""
        grid = self.query("#grid")
        if answer.kind == "tensor" and grid and not text.strip():
            values, half, decimals = grid.first(AnswerGrid).readings()
            return Reading(values, half, decimals), repr(values.tolist())
        reading = read_prediction(answer, text)
        if grid and answer.kind == "tensor" and reading.value is not None:  # (None: a prediction, graded wrong)
            grid.first(AnswerGrid).set_values(np.asarray(reading.value))
        return reading, text.strip()

    def check(self) -> None:
        """Enter in an editor: grade the typed prediction; after the final verdict, continue."""
        if not self.graded:
            self.post_message(self.Continue())
            return
        if self.state.solved:
            self.post_message(self.Continue())
            return
        if self.step.kind != "predict" or self.query("#choices"):
            return
        lang = self.app.lang
        from tutor.answer_input import AnswerFormatError

        answer = self.answer
        try:
            reading, text = self._read(answer)
        except AnswerFormatError as error:
            self._feedback(Text(error.message(lang)), "-error")
            self._diagnose_other_shape(answer, error)
            return
        except Exception as error:  # never let typed text end the app
            self._feedback(Text(t("answer_not_checked", lang, reason=f"{type(error).__name__}: {error}")), "-error")
            return
        state = self.state
        if text == state.last_checked and state.verdict in ("wrong", "close"):
            self._feedback(Text(t("same_answer", lang)), "-info", keep_verdict=True)
            return
        from lessons.answers import compare

        verdict = compare(answer, reading.value, reading.half_unit, reading.decimals)
        state.last_checked = text
        grid = self.query("#grid")
        if grid and verdict.cells is not None:
            grid.first(AnswerGrid).mark(verdict.cells, None)
            state.marks = grid.first(AnswerGrid).marks
            state.wrong_count, state.cell_count = int((~verdict.cells).sum()), int(verdict.cells.size)
        else:
            state.wrong_count = state.cell_count = 0
        state.diagnosis = None
        state.pending = None
        if verdict.close and not verdict.correct:
            state.verdict = "close"
            self._show_verdict(lang)
            return
        self._grade(text, verdict.correct, None if verdict.correct else reading)
        if not verdict.correct:
            self._select_typed()

    def _select_typed(self) -> None:
        """After a wrong answer typed in the whole-answer field, select it: typing starts the next try afresh,
        while an arrow key or End keeps it to edit (a close answer is left as it is, to be made more precise)."""
        whole = self.query("#whole")
        if whole and whole.first(Input).value:
            whole.first(Input).select_all()

    # ------------------------------------------------------------------ diagnosis, off the UI thread

    def _diagnose_later(self, answer, reading, text: str, shaped: bool = False) -> None:
        """Ask which misconception is behind the wrong prediction `text`: at once when its step's buggy answers
        are known, else in a worker thread (one sandbox job, ~0.3 s), the verdict already shown. When it comes,
        the attempt waiting for it (`state.deferred`) is recorded with it and the verdict, if still the one
        shown, names it. `shaped`:
        `text` had another shape than the answer and was refused; a misconception that explains it makes it a
        wrong verdict after all."""
        from tutor.grading import diagnosis_waits

        step, find = self.step, self._finder(answer, reading)
        self.state.pending = text
        if not diagnosis_waits(step, answer):
            self._diagnosed(text, shaped, find())
            return
        app = self.app

        def work() -> None:
            found = find()
            try:
                app.call_from_thread(self._diagnosed, text, shaped, found)
            except RuntimeError:  # the app has ended meanwhile
                pass
        app.run_worker(work, thread=True, group="diagnosis", exit_on_error=False)

    def _finder(self, answer, reading):
        """A call that finds the misconception behind `reading` (never raises; safe in a worker thread)."""
        from tutor.grading import diagnose
        from tutor.i18n import LANGUAGES

        titles = {lang: {lesson.id: lesson.title.get(lang) for lesson in self.app.course.lessons} for lang in LANGUAGES}
        step = self.step
        lesson = getattr(self.practice, "lesson", None)
        here = f"{lesson.id}:{step.id}" if lesson is not None else None

        def find():
            try:
                return diagnose(step, answer, reading, titles.get, here)
            except Exception:  # noqa: BLE001 - a diagnosis is a bonus: the verdict stands without it
                return None
        return find

    def _diagnosed(self, text: str, shaped: bool, found) -> None:
        state = self.state
        current = state.pending == text
        if current:
            state.pending = None
        if shaped:  # a refused shape: graded only when a misconception explains it, and still on screen
            if found is None or not current or not self.is_mounted:
                return
            state.last_checked, state.diagnosis = text, found
            self._grade(text, False)
            return
        if state.deferred is not None and state.deferred[0] == text:
            self._flush(found)
        if current and state.last_checked == text and state.verdict == Outcome.WRONG and self.is_mounted:
            state.diagnosis = found
            if found is not None:
                self._show_verdict(self.app.lang)

    def _diagnose_other_shape(self, answer, error) -> None:
        """A tensor typed in another shape than the answer's (a broadcast gradient not summed back…)."""
        from tutor.grading import diagnosable, read_other_shape, read_prediction

        shape = read_other_shape(answer, error) if diagnosable(self.step, answer) else None
        whole = self.query("#whole")
        if shape is None or not whole:
            return
        text = whole.first(Input).value.strip()
        try:
            reading = read_prediction(answer, text, shape)
        except Exception:  # noqa: BLE001 - unreadable after all: the format message stands
            return
        self._diagnose_later(answer, reading, text, shaped=True)

    def choose(self, chosen: int) -> None:
        """An option was selected (its index in the step's own order)."""
        if self.state.solved:
            self.post_message(self.Continue())
            return
        answer = self.answer
        if answer is None:
            return
        correct_index = (0 if answer.value else 1) if answer.kind == "bool" else answer.value
        correct = chosen == correct_index
        if not correct:
            self.state.wrong_choices.add(chosen)
        label = str(chosen == 0) if answer.kind == "bool" else str(chosen)
        self._grade(label, correct)

    def _grade(self, text: str | None, correct: bool, reading=None) -> None:
        """The verdict, shown at once; recorded now, or (a wrong prediction `reading` to diagnose) with its
        diagnosis when that comes (`_diagnose_later`)."""
        state = self.state
        outcome = Outcome.CORRECT if correct else Outcome.WRONG
        first = not state.attempted
        state.verdict = outcome
        state.solved = correct
        from tutor.grading import diagnosis_waits

        waits = reading is not None and diagnosis_waits(self.step, self.answer)
        if reading is not None and not waits:  # the step's buggy answers are known: named at once
            state.diagnosis = self._finder(self.answer, reading)()
        if waits and self.practice.records_retries():  # (every attempt is recorded: this one with its diagnosis)
            self._flush()
            state.attempted = True   # recorded when diagnosed (`_diagnosed`), or before anything else is
            state.deferred = (text, int((time.monotonic() - state.started) * 1000), state.hints_shown)
        elif first or self.practice.records_retries():
            self._record(text, outcome, state.diagnosis if outcome == Outcome.WRONG else None)
        self._mark_choices()
        self._show_verdict(self.app.lang)
        if waits:
            self._diagnose_later(self.answer, reading, text)
        if correct:  # out of the editor: the one-letter keys work, Enter goes on
            self.focus()
            if self.step.kind == "error":
                self.call_later(self._refresh_snippet)

    def show_answer(self) -> None:
        """The learner gives up on this step: show the answer and the explanation; recorded as shown."""
        if not self.graded or self.state.verdict == "correct" or self.state.revealed:
            return
        state = self.state
        if not state.attempted or self.practice.records_retries():
            self._record(None, Outcome.REVEALED)
        state.revealed = state.solved = True
        state.verdict = "revealed"
        grid = self.query("#grid")
        if grid and state.marks is not None:
            grid.first(AnswerGrid).mark(state.marks, self.answer.value)
        self._mark_choices()
        self._show_verdict(self.app.lang)
        if self.step.kind == "error":
            self.call_later(self._refresh_snippet)
        self.focus()

    def retry(self) -> None:
        """Clear the marks and the verdict and go back to the editor: to the whole-answer field when the answer
        was typed there (selected again after a wrong one, as right after the verdict)."""
        if self.state.solved:
            return
        grid = self.query("#grid")
        if grid:
            grid.first(AnswerGrid).clear_marks()
        wrong = self.state.verdict == Outcome.WRONG
        self.state.marks = None
        self.state.verdict = None
        self.state.last_checked = None
        self._feedback(Text(""), "")
        whole = self.query("#whole")
        editor = whole.first() if whole and whole.first(Input).value.strip() else self.editor()
        if editor is not None:
            editor.focus()
        if wrong:
            self._select_typed()

    def hint(self) -> None:
        lang = self.app.lang
        hints = [hint.get(lang) for hint in self.step.hints]
        if not hints:
            self.notify(t("no_hints", lang))
            return
        if self.state.hints_shown >= len(hints):
            self.notify(t("no_more_hints", lang))
            return
        self.state.hints_shown += 1
        found = self.query("#hints")
        if found:
            found.first(Hints).show(hints, self.state.hints_shown, lang)
            self.call_after_refresh(self._scroll_into_view, found.first())

    def _flush(self, diagnosis=None) -> None:
        """Record the wrong attempt still waiting for its diagnosis (with it, when it has come): attempts are
        recorded in the order they were made, and none is lost when the learner moves on (a lesson's only; a
        quiz records its first verdict at once)."""
        deferred, self.state.deferred = self.state.deferred, None
        if deferred is not None:
            text, duration, hints = deferred
            self._record(text, Outcome.WRONG, diagnosis, duration, hints)

    def on_unmount(self) -> None:
        if self.step is not None:  # (a quiz left before its first question has nothing to record)
            self._flush()

    def _record(self, text: str | None, outcome: Outcome, diagnosis=None, duration: int | None = None,
                hints: int | None = None) -> None:
        self._flush()
        state = self.state
        state.attempted = True
        state.outcome = Outcome.CORRECT if Outcome.CORRECT in (state.outcome, outcome) else outcome
        if duration is None:
            duration = int((time.monotonic() - state.started) * 1000)
        from tutor.progress.model import ProgressError

        try:
            diagnosed = diagnosis.id if outcome == "wrong" and diagnosis is not None else None
            self.practice.record(self.index, text, outcome, state.hints_shown if hints is None else hints, duration,
                                 diagnosed)
        except ProgressError as error:
            self.post_message(self.RecordFailed(error))
            return
        self.post_message(self.Answered(self, self.index, outcome))

    # ------------------------------------------------------------------ showing verdicts

    def _mark_choices(self) -> None:
        found = self.query("#choices")
        if not found or self.answer is None:
            return
        answer = self.answer
        correct_index = (0 if answer.value else 1) if answer.kind == "bool" else answer.value
        found.first(ChoiceList).mark(correct_index if self.state.solved else None, self.state.wrong_choices)

    def _show_verdict(self, lang: str) -> None:
        state = self.state
        answer = self.answer
        verdict = state.verdict
        if verdict == "correct":
            message = Text.assemble((t("correct", lang), "bold green"))
            if state.outcome != "correct" and not self.practice.records_retries():
                message.append(_space(lang) + t("quiz_first_counts", lang), style=MUTED)
            kind = "-correct"
        elif verdict == "close":
            import numpy as np

            from lessons.values import scaled_atol

            atol = scaled_atol(np.asarray(answer.value, dtype=np.float64), answer.tolerance.atol)  # as compare has it
            message = Text.assemble((t("answer_close", lang), "bold yellow"), "\n",
                                    t("answer_close_tolerance", lang, atol=f"{atol:.2g}", rtol=f"{answer.tolerance.rtol:.2g}"))
            kind = "-close"
        elif verdict == "wrong":
            message = Text.assemble((t("wrong", lang), "bold red"))
            if state.cell_count > 1:
                message.append(_space(lang) + t("wrong_cells", lang, count=state.wrong_count, total=state.cell_count))
            if state.diagnosis is not None:
                message.append("\n" + t("diagnosis_label", lang) + ": ", style="bold")
                message.append(plain(state.diagnosis.message(lang)))  # names a lesson by its (untrusted) title
            message.append("\n" + t("try_again" if self.step.hints else "try_again_no_hints", lang), style="")
            kind = "-wrong"
        else:
            message = Text.assemble((t("answer_shown", lang), "yellow"))
            if answer.kind not in ("error", "choice"):
                message.append("\n" + t("correct_value", lang, value=format_value(answer.kind, answer.value)))
            kind = "-revealed"
        if state.solved:
            message.append("\n" + t(self.continue_key, lang), style=MUTED)
        self._feedback(message, kind)
        if state.solved:
            self._show_explanation(lang)

    continue_key = "enter_continue"  # the quiz says "next question"

    def _show_explanation(self, lang: str) -> None:
        """After the final verdict: the step's explanation and, for choices, why each option is right or wrong."""
        parts = []
        if self.step.kind == "error":
            for choice in self.step.choices:
                if choice.why is not None:
                    label = t("error_none", lang) if choice.is_none else choice.error
                    parts.append(f"- **{label}** — {choice.why.get(lang)}")
        elif self.step.kind == "choice":
            for option in self.step.options:
                if option.why is not None:
                    parts.append(f"- **{option.text.get(lang)}** — {option.why.get(lang)}")
        if self.step.explanation is not None:
            parts.append(self.step.explanation.get(lang))
        explanation = self.query("#explanation")
        if explanation and parts:
            explanation.first(MarkdownText).show_markdown("\n\n".join(parts))

    def _feedback(self, message: Text, kind: str, keep_verdict: bool = False) -> None:
        found = self.query("#feedback")
        if not found:
            return
        feedback = found.first(Static)
        feedback.update(text(message))  # typed text, answers and error messages: cleaned, styles kept
        feedback.set_classes(kind)
        self.call_after_refresh(self._scroll_into_view, feedback)

    async def _refresh_snippet(self) -> None:
        """An error step, once over, shows what the program printed and raised."""
        old = self.query("#snippet")
        if not old:
            return
        await old.first().remove()
        await self.mount(self._snippet_cell(self.app.lang), after=self.query_one("#step-text"))

    # ------------------------------------------------------------------ events from the editors

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.check()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.state.typed = event.value

    def on_answer_grid_submitted(self, event: AnswerGrid.Submitted) -> None:
        event.stop()
        self.check()

    def on_answer_grid_edited(self, event: AnswerGrid.Edited) -> None:
        """A corrected cell is the answer now: an earlier whole answer would otherwise be graded again."""
        event.stop()
        found = self.query("#whole")
        if found:
            found.first(Input).value = ""

    def on_answer_grid_pasted(self, event: AnswerGrid.Pasted) -> None:
        event.stop()
        self._to_whole(event.text, replace=True)

    def on_answer_grid_typed_elsewhere(self, event: AnswerGrid.TypedElsewhere) -> None:
        """A letter in a grid cell starts a whole answer (a formula such as `x**2/2`)."""
        event.stop()
        self._to_whole(event.text, replace=False)

    def _to_whole(self, text: str, replace: bool) -> None:
        found = self.query("#whole")
        if not found:
            return
        from tutor.answer_input import one_line

        whole = found.first(AnswerField)
        text = one_line(text)
        whole.value = text if replace else whole.value + text
        whole.focus()
        whole.cursor_position = len(whole.value)
        whole.show_cursor()
        self.call_after_refresh(self._scroll_into_view, whole)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.choose(int(event.option.id))


def _space(lang: str) -> str:
    """Between two sentences: a space in English, none after Japanese 。"""
    return "" if lang == "ja" else " "
