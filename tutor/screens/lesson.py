"""The lesson view: one step at a time — its text, its code cell, an answer editor, feedback, hints.

The correct answer always comes from `lessons.answers.compute_answer` (the engine runs the step's
program); the screen only reads what the learner typed (`tutor.answer_input`), asks
`lessons.answers.compare` for the verdict, shows it and records the attempt through the app.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Input, OptionList, Static

from tutor.answer_input import AnswerFormatError, parse_answer
from tutor.i18n import t
from tutor.widgets.answer_grid import AnswerGrid, format_cell, grid_fits
from tutor.widgets.choice_list import ChoiceList
from tutor.widgets.footer import TutorFooter
from tutor.widgets.hints import Hints
from tutor.widgets.markdown_text import MarkdownText
from tutor.widgets.snippet_cell import SnippetCell
from tutor.widgets.step_progress import StepProgress

GRADED = ("predict", "error", "choice")


@dataclass
class StepState:
    """What the learner did on one step during this visit (outcome also from earlier sessions)."""

    outcome: str | None = None  # last outcome: "correct" | "wrong" | "skipped"
    attempted: bool = False  # may open the explanation
    hints_shown: int = 0
    started: float = field(default_factory=time.monotonic)


def format_value(kind: str, value) -> str:
    """An answer as the learner would see PyTorch print it."""
    if kind == "tensor":
        from engine.printing import format_tensor

        return format_tensor(value)
    if kind == "number":
        return format_cell(value)
    return str(value)


class LessonScreen(Screen[None]):
    """Enter checks; `h` hint, `s` skip, `e` explanation, `n`/`p` next/previous, Esc back."""

    CSS_PATH = Path(__file__).parent.parent / "styles" / "lesson.tcss"

    BINDINGS = [
        Binding("escape", "back", "back"),
        Binding("enter", "primary", show=False),
        Binding("h", "hint", "hint"),
        Binding("s", "skip", "skip"),
        Binding("e", "explain", "explain"),
        Binding("r", "retry", "retry"),
        Binding("p", "previous", "previous"),
        Binding("n", "next", "next"),
    ]

    def __init__(self, lesson, index: int = 0) -> None:
        super().__init__()
        self.lesson = lesson
        self.index = index
        self.states: dict[str, StepState] = {}
        self._builder = None
        self._answers: dict[str, object] = {}

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Header()
        yield StepProgress(id="progress")
        yield VerticalScroll(id="body", can_focus=True)
        yield TutorFooter()

    async def on_mount(self) -> None:
        # Textual runs every on_mount along the class hierarchy: a subclass changes what happens
        # here by overriding restore_states/show_step, not by defining its own on_mount.
        self.restore_states()
        await self.show_step(self.index)

    def restore_states(self) -> None:
        """Outcomes from earlier sessions: the progress marks show them and the explanation opens."""
        for attempt in self.app.attempts(self.lesson.id):
            state = self.states.setdefault(attempt.step_id, StepState())
            state.attempted = True
            if state.outcome != "correct":
                state.outcome = str(attempt.outcome)

    @property
    def step(self):
        return self.lesson.steps[self.index]

    @property
    def state(self) -> StepState:
        return self.states.setdefault(self.step.id, StepState())

    async def show_step(self, index: int) -> None:
        """Lay out step `index` afresh (also after a language switch or a lesson reload)."""
        self.index = max(0, min(index, len(self.lesson.steps) - 1))
        self.state.started = time.monotonic()
        lang = self.app.lang
        self.sub_title = self.lesson.title.get(lang)
        self.app.save_position(self.lesson.id, self.step.id)
        self._show_progress()
        body = self.query_one("#body", VerticalScroll)
        await body.remove_children()
        await body.mount_all(list(self._step_widgets(lang)))
        body.scroll_home(animate=False)
        editor = self._editor()
        (editor or body).focus()
        self.refresh_bindings()

    def _show_progress(self) -> None:
        outcomes = [self.states[s.id].outcome if s.id in self.states else None for s in self.lesson.steps]
        self.query_one("#progress", StepProgress).show(self.index, outcomes, self.app.lang)

    def _step_widgets(self, lang: str):
        step = self.step
        yield MarkdownText(step.text.get(lang), id="step-text")
        answer, problem = self._answer_or_problem()
        if step.snippet is not None:
            yield self._snippet_cell(step, answer, lang)
        if problem is not None:
            yield Static(t("answer_unavailable", lang, message=problem), id="feedback", classes="-error")
            return
        if step.kind == "predict":
            before, _, after = t("predict_prompt", lang, expression="\0").replace("`", "").partition("\0")
            yield Static(Text.assemble(before, (step.expression, "bold"), after), id="prompt")
            yield from self._predict_editor(answer, lang)
        elif step.kind == "error":
            labels = [t("error_none", lang) if choice.is_none else choice.error for choice in step.choices]
            yield ChoiceList(labels, id="choices")
        elif step.kind == "choice":
            from tutor.widgets.inline_text import inline_markdown

            yield ChoiceList([inline_markdown(option.text.get(lang)) for option in step.options], id="choices")
        else:
            yield Static(t("read_continue", lang), id="feedback", classes="-info")
            return
        yield Static("", id="feedback")
        hints = Hints(id="hints")
        hints.display = False
        yield hints
        yield MarkdownText("", id="explanation")

    def _snippet_cell(self, step, answer, lang: str) -> SnippetCell:
        """The code, with its output — for an error step only once it is answered (it is the question)."""
        labels = {"no_output": t("no_output", lang), "error": ""}
        if step.kind == "error" and not self.state.attempted:
            return SnippetCell(step.snippet, None, None, labels, id="snippet")
        stdout, raised = None, None
        if answer is not None:
            stdout, raised = answer.stdout, getattr(answer, "raised", None)
        elif step.kind == "read":
            stdout, raised = self._read_output()
        if raised is not None:
            labels["error"] = t("snippet_error", lang, error=f"{raised.type}: {raised.message}")
        return SnippetCell(step.snippet, stdout, labels["error"] or None, labels, id="snippet")

    def _predict_editor(self, answer, lang: str):
        if answer.kind == "tensor":
            shape = answer.shape
            shown = "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
            if grid_fits(shape):
                yield Static(t("tensor_hint", lang, shape=shown), classes="editor-hint")
                yield AnswerGrid(shape, id="grid")
            else:
                yield Static(t("tensor_text_hint", lang, shape=shown), classes="editor-hint")
            yield Input(placeholder=t("whole_answer_placeholder", lang), id="whole")
        elif answer.kind == "bool":
            yield ChoiceList(["True", "False"], id="choices")
        elif answer.kind == "number":
            yield Input(placeholder=t("number_placeholder", lang), id="whole")
        elif answer.kind == "none":
            yield Input(placeholder=t("whole_answer_placeholder", lang), id="whole")
        else:
            yield Input(placeholder=t("text_placeholder", lang), id="whole")

    def _editor(self):
        for selector in ("#grid", "#whole", "#choices"):
            found = self.query(selector)
            if found:
                return found.first()
        return None

    # ------------------------------------------------------------------ answers

    def _answer_or_problem(self):
        """The step's answer (None for a read step) or the message saying why it cannot be computed."""
        if self.step.kind not in GRADED:
            return None, None
        from lessons.answers import AnswerError, compute_answer

        if self.step.id not in self._answers:
            try:
                self._answers[self.step.id] = compute_answer(self.lesson, self.step, self._program_builder())
            except AnswerError as error:
                self._answers[self.step.id] = error
        answer = self._answers[self.step.id]
        return (None, answer.message) if isinstance(answer, AnswerError) else (answer, None)

    def _program_builder(self):
        if self._builder is None:
            from lessons.programs import ProgramBuilder

            self._builder = ProgramBuilder(self.lesson)
        return self._builder

    def _read_output(self):
        """A read step's printed output and error, from running its program."""
        builder = self._program_builder()
        program = builder.program(self.index)
        if program is None:
            return None, None
        result = builder.run(program.source)
        return result.stdout, result.error

    @property
    def answer(self):
        answer, _problem = self._answer_or_problem()
        return answer

    def _read_prediction(self, answer):
        """The learner's prediction as a value, and as the text to record."""
        whole = self.query("#whole")
        text = whole.first(Input).value if whole else ""
        grid = self.query("#grid")
        evaluate = answer.run.evaluate if answer.run is not None else None
        if answer.kind == "tensor" and grid and not text.strip():
            values = grid.first(AnswerGrid).values()
            return values, repr(values.tolist())
        value = parse_answer(text, answer.kind, answer.shape, evaluate)
        if grid and answer.kind == "tensor":
            grid.first(AnswerGrid).set_values(value)
        return value, text.strip()

    def action_check(self) -> None:
        """Check a typed prediction; a malformed one only gets a message."""
        answer = self.answer
        if self.step.kind != "predict" or answer is None or self.query("#choices"):
            return
        try:
            value, text = self._read_prediction(answer)
        except AnswerFormatError as error:
            self._feedback(Text(error.message(self.app.lang)), "-error")
            return
        from lessons.answers import compare

        verdict = compare(answer, value)
        self._record(text, "correct" if verdict.correct else "wrong")
        grid = self.query("#grid")
        if grid and verdict.cells is not None:
            grid.first(AnswerGrid).mark(verdict.cells, answer.value)
        self._show_verdict(verdict.correct, answer, verdict.cells)

    def _check_choice(self, chosen: int) -> None:
        answer = self.answer
        if answer is None:
            return
        if answer.kind == "bool":
            value = chosen == 0
            correct = value == answer.value
            self._record(str(value), "correct" if correct else "wrong")
            self.query_one("#choices", ChoiceList).mark(0 if answer.value else 1, None if correct else chosen)
        else:
            correct = chosen == answer.value
            self._record(str(chosen), "correct" if correct else "wrong")
            self.query_one("#choices", ChoiceList).mark(answer.value, None if correct else chosen)
        self._show_verdict(correct, answer, None)
        if self.step.kind == "error":
            self.call_later(self._refresh_snippet)

    async def _refresh_snippet(self) -> None:
        """An answered error step shows what the program printed and raised."""
        old = self.query_one("#snippet", SnippetCell)
        await old.remove()
        cell = self._snippet_cell(self.step, self.answer, self.app.lang)
        await self.query_one("#body").mount(cell, after=self.query_one("#step-text"))

    def _record(self, answer_text: str | None, outcome: str) -> None:
        state = self.state
        state.outcome = outcome if state.outcome != "correct" else "correct"
        state.attempted = True
        self.app.record_attempt(
            lesson_id=self.lesson.id,
            step_id=self.step.id,
            concepts=self.lesson.concepts,
            answer=answer_text,
            outcome=outcome,
            hints_used=state.hints_shown,
            duration_ms=int((time.monotonic() - state.started) * 1000),
        )
        self._show_progress()
        self.refresh_bindings()

    def _show_verdict(self, correct: bool, answer, cells) -> None:
        lang = self.app.lang
        if correct:
            message = Text(t("correct", lang), style="bold green")
        else:
            message = Text(t("wrong", lang), style="bold red")
            if cells is not None and cells.size > 1:
                message.append(" " + t("wrong_cells", lang, count=int((~cells).sum()), total=int(cells.size)))
            if answer.kind not in ("error", "choice"):
                message.append("\n" + t("correct_value", lang, value=format_value(answer.kind, answer.value)))
        self._feedback(message, "-correct" if correct else "-wrong")
        self._show_explanation()

    def _show_explanation(self) -> None:
        """After an attempt: the step's explanation and, for choices, why each option is right or wrong."""
        lang = self.app.lang
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

    def _feedback(self, message: Text, kind: str) -> None:
        feedback = self.query_one("#feedback", Static)
        feedback.update(message)
        feedback.set_classes(kind)
        self.call_after_refresh(feedback.scroll_visible, animate=False)  # under a tall grid at 80x24

    # ------------------------------------------------------------------ events and actions

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_check()

    def on_answer_grid_submitted(self, event: AnswerGrid.Submitted) -> None:
        event.stop()
        self.action_check()

    def on_answer_grid_pasted(self, event: AnswerGrid.Pasted) -> None:
        event.stop()
        whole = self.query_one("#whole", Input)
        whole.value = event.text
        whole.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._check_choice(int(event.option.id))

    async def action_primary(self) -> None:
        """Enter outside an editor: continue past a read step or a correctly answered one."""
        if self.step.kind not in GRADED or self.state.outcome == "correct":
            await self.action_next()

    async def action_next(self) -> None:
        if self.index + 1 < len(self.lesson.steps):
            await self.show_step(self.index + 1)
        else:
            self.notify(t("lesson_done", self.app.lang))

    async def action_previous(self) -> None:
        if self.index > 0:
            await self.show_step(self.index - 1)

    def action_hint(self) -> None:
        hints = [hint.get(self.app.lang) for hint in self.step.hints]
        lang = self.app.lang
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

    def action_skip(self) -> None:
        answer = self.answer
        if answer is None:
            return
        self._record(None, "skipped")
        lang = self.app.lang
        message = Text(t("skipped", lang), style="yellow")
        if answer.kind in ("error", "choice"):
            self.query_one("#choices", ChoiceList).mark(answer.value, None)
            if self.step.kind == "error":
                self.call_later(self._refresh_snippet)
        else:
            message.append("\n" + t("correct_value", lang, value=format_value(answer.kind, answer.value)))
        self._feedback(message, "-skipped")
        self._show_explanation()

    def action_retry(self) -> None:
        grid = self.query("#grid")
        if grid:
            grid.first(AnswerGrid).clear_marks()
        self._feedback(Text(""), "")
        editor = self._editor()
        if editor is not None:
            editor.focus()

    def action_explain(self) -> None:
        answer = self.answer
        if answer is None:
            return
        if not self.state.attempted:
            self.notify(t("answer_first", self.app.lang))
            return
        from tutor.screens.reveal import RevealScreen

        source = self._program_builder().program(self.index).source
        self.app.push_screen(RevealScreen(self.lesson, self.step, answer, source))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide keys that do nothing on this step (None greys them out in the footer)."""
        graded = self.step.kind in GRADED and self.answer is not None
        if action in ("hint", "skip", "retry"):
            return graded
        if action == "explain":
            if self.step.kind != "predict" or not graded:
                return False
            return True if self.state.attempted else None
        if action == "previous":
            return self.index > 0
        return True

    async def action_back(self) -> None:
        """Esc leaves a field first (so letter keys work again), then the lesson."""
        if isinstance(self.focused, (Input, OptionList, AnswerGrid)):
            self.query_one("#body").focus()
        else:
            self.dismiss()

    # ------------------------------------------------------------------ app notifications

    def apply_language(self) -> None:
        self.call_later(self.show_step, self.index)

    def course_changed(self) -> None:
        """The lesson file changed on disk: show the new version, unless the edit broke it."""
        fresh = self.app.lesson(self.lesson.id)
        if fresh is None or fresh == self.lesson:
            return
        self.lesson = fresh
        self._builder = None
        self._answers.clear()
        self.call_later(self.show_step, self.index)
