"""What differs between practising in a lesson and in a quiz, without any UI.

`StepView` (tutor/widgets/step_view.py) shows one step and runs the predict → check → retry →
reveal loop; it asks a `Practice` for the step's answer and output, and tells it each verdict.
`LessonPractice` computes answers by running the lesson's programs and records every attempt
through the app; `QuizPractice` has its answer already (the generator computed it) and submits the
first verdict of each question to the quiz session, so retries teach without inflating the record.
"""
from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from tutor.progress.model import Outcome

__all__ = ["GRADED", "LessonPractice", "Outcome", "Practice", "QuizPractice", "StepOutput", "StepState", "shuffled"]

GRADED = ("predict", "error", "choice")


@dataclass
class StepState:
    """What the learner did on one step: kept across a language switch and a step change."""

    outcome: Outcome | None = None  # the recorded outcome (revealed: the answer was shown)
    attempted: bool = False  # a verdict was recorded (may open the explanation)
    solved: bool = False  # answered correctly, or the answer was shown: the loop is over
    revealed: bool = False  # the learner asked to see the answer
    verdict: str | None = None  # last verdict shown: "correct" | "wrong" | "close" | "revealed" | "answered"
    wrong_count: int = 0  # wrong cells in the last check
    cell_count: int = 0
    last_checked: str | None = None  # the answer text last graded (Enter on it again grades nothing)
    typed: str = ""  # the whole-answer field
    cells: list | None = None  # the grid's texts
    marks: list | None = None  # the grid's marks
    wrong_choices: set[int] = field(default_factory=set)
    hints_shown: int = 0
    started: float = field(default_factory=time.monotonic)
    diagnosis: Any = None  # the misconception behind the last wrong prediction (`tutor.grading.Diagnosis`)
    pending: str | None = None  # the prediction whose diagnosis is being computed (`StepView._diagnose_later`)
    deferred: tuple | None = None  # (text, duration ms, hints) of a wrong attempt recorded when diagnosed


@dataclass(frozen=True)
class StepOutput:
    """What a step's code cell shows: its own printout (and error), and what earlier cells printed."""

    own: str | None
    earlier: str = ""
    raised: Any = None
    warnings: str = ""   # what its code wrote to stderr (PyTorch's warnings), shown as a notebook shows them


class Practice(Protocol):
    """The mode behind a StepView: where answers come from and where verdicts go."""

    lesson: Any

    def answer(self, index: int) -> tuple[Any, str | None]: ...

    def output(self, index: int) -> StepOutput: ...

    def record(self, index: int, answer_text: str | None, outcome: Outcome, hints_used: int, duration_ms: int,
               misconception: str | None = None) -> bool: ...

    def records_retries(self) -> bool: ...

    def choice_order(self, index: int, count: int) -> list[int]: ...

    def concepts(self, index: int) -> tuple[str, ...]: ...

    def source(self, index: int) -> str | None: ...


def shuffled(count: int, seed: str) -> list[int]:
    """A permutation of range(count), the same for the same seed on every machine."""
    order = list(range(count))
    random.Random(int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "big")).shuffle(order)
    return order


class LessonPractice:
    """A lesson's steps: answers from running its programs, every attempt recorded by `record`."""

    def __init__(self, lesson, recorder, learner_seed: str = "") -> None:
        self.lesson = lesson
        self._recorder = recorder  # callable(**attempt), the app's record_attempt
        self._seed = learner_seed
        self._builder = None
        self._answers: dict[str, Any] = {}
        self._outputs: dict[str, StepOutput] = {}

    def builder(self):
        if self._builder is None:
            from lessons.programs import ProgramBuilder

            self._builder = ProgramBuilder(self.lesson)
        return self._builder

    def answer(self, index: int) -> tuple[Any, Any]:
        """The step's answer (None for a read step), or, when it cannot be computed, where its lesson
        file is at fault (`squares.toml:27`: a learner is told where, the author sees why in `check`),
        or a `WorkerProblem` when the tutor's own worker could not run it (no lesson is blamed)."""
        step = self.lesson.steps[index]
        if step.kind not in GRADED:
            return None, None
        from lessons.answers import AnswerError, WorkerUnavailable, compute_answer

        if step.id not in self._answers:
            try:
                self._answers[step.id] = compute_answer(self.lesson, step, self.builder())
            except AnswerError as error:
                self._answers[step.id] = error
        answer = self._answers[step.id]
        if isinstance(answer, WorkerUnavailable):  # the tutor's fault, said so: no lesson line is blamed
            from tutor.problems import WorkerProblem

            return None, WorkerProblem(answer.message)
        if isinstance(answer, AnswerError):
            from tutor.problems import where

            line = answer.file_line or self.lesson.line_of(f"steps[{index}].{answer.key}" if answer.key else f"steps[{index}]")
            return None, where(self.lesson.path, line)
        return answer, None

    def output(self, index: int) -> StepOutput:
        """What this step's own code printed; a continuing step's earlier cells' printout apart."""
        step = self.lesson.steps[index]
        if step.id in self._outputs:
            return self._outputs[step.id]
        builder = self.builder()
        answer, _problem = self.answer(index)
        if answer is not None and answer.run is not None:
            stdout, raised, warnings = answer.stdout, getattr(answer, "raised", None), answer.run.stderr
        else:
            program = builder.program(index)
            if program is None:
                return StepOutput(None)
            result = builder.run(program.source)
            stdout, raised, warnings = result.stdout, result.error, result.stderr
        earlier = ""
        prefix = builder.prefix(index)
        if prefix is not None and (stdout or warnings):
            before = builder.run(prefix.source)
            if before.stdout and stdout.startswith(before.stdout):
                earlier, stdout = before.stdout, stdout[len(before.stdout):]
            if before.stderr and warnings.startswith(before.stderr):  # an earlier cell's warning is its own
                warnings = warnings[len(before.stderr):]
        self._outputs[step.id] = StepOutput(stdout, earlier, raised, warnings)
        return self._outputs[step.id]

    def record(self, index: int, answer_text: str | None, outcome: Outcome, hints_used: int, duration_ms: int,
               misconception: str | None = None) -> bool:
        step = self.lesson.steps[index]
        self._recorder(lesson_id=self.lesson.id, step_id=step.id, concepts=self.concepts(index),
                       answer=answer_text, outcome=outcome, hints_used=hints_used, duration_ms=duration_ms,
                       misconception=misconception)
        return True

    def records_retries(self) -> bool:
        return True

    def choice_order(self, index: int, count: int) -> list[int]:
        step = self.lesson.steps[index]
        return shuffled(count, f"{self._seed}:{self.lesson.id}:{step.id}")

    def concepts(self, index: int) -> tuple[str, ...]:
        """The step's own concepts when it declares them, else the lesson's."""
        step = self.lesson.steps[index]
        return tuple(getattr(step, "concepts", None) or self.lesson.concepts)

    def source(self, index: int) -> str | None:
        program = self.builder().program(index)
        return program.source if program is not None else None

    def forget(self) -> None:
        """The lesson file changed: compute everything again."""
        self._builder = None
        self._answers.clear()
        self._outputs.clear()


class QuizPractice:
    """One quiz question at a time: the answer is known; the first verdict goes to the session."""

    def __init__(self, session, learner_seed: str = "") -> None:
        self.session = session
        self._seed = learner_seed
        self.question = None
        self.outcomes: list[Outcome] = []

    @property
    def lesson(self):
        """The question's one-step lesson (None before the first question)."""
        return self.question.lesson if self.question is not None else None

    def load(self, question) -> None:
        self.question = question

    def answer(self, index: int) -> tuple[Any, str | None]:
        return self.question.answer, None

    def output(self, index: int) -> StepOutput:
        answer = self.question.answer
        return StepOutput(answer.stdout, "", getattr(answer, "raised", None), getattr(answer.run, "stderr", ""))

    def record(self, index: int, answer_text: str | None, outcome: Outcome, hints_used: int, duration_ms: int,
               misconception: str | None = None) -> bool:
        from tutor.progress.model import ProgressError

        try:
            self.session.submit(outcome, answer=answer_text, hints_used=hints_used, duration_ms=duration_ms,
                                misconception=misconception)
        except ProgressError:
            raise
        self.outcomes.append(outcome)
        return True

    def records_retries(self) -> bool:
        return False

    def choice_order(self, index: int, count: int) -> list[int]:
        return shuffled(count, f"{self._seed}:quiz:{self.question.id}")

    def concepts(self, index: int) -> tuple[str, ...]:
        return tuple(self.question.concepts)

    def source(self, index: int) -> str | None:
        from lessons.programs import ProgramBuilder

        program = ProgramBuilder(self.question.lesson).program(0)
        return program.source if program is not None else None
