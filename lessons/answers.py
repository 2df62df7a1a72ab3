"""A step's correct answer, computed by running its program — never typed by an author.

`compute_answer(lesson, step)` runs the step's program through the snippet
runner and evaluates the predicted expression (predict steps), finds the one
choice matching what the program raised (error steps), or reads the option
marked correct (choice steps). Programs run in the sandbox worker (`engine.sandbox`); the `Answer`
keeps that run, whose `evaluate` reads learner formulas in the program's final state.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from lessons.messages import say
from lessons.model import (
    ChoiceStep,
    ErrorChoice,
    ErrorStep,
    Lesson,
    PredictStep,
    QuizTemplate,
    Step,
    Tolerance,
)
from lessons.programs import Program, ProgramBuilder, join
from lessons.text import LocalText
from lessons.values import Plain, UnsupportedValue, classify, isclose, same

# runner outcomes that mean the program itself is unusable, not a PyTorch error to predict
REFUSALS = frozenset({"SnippetRejected", "ResourceLimitExceeded", "SnippetStopped",
                      "SyntaxError", "IndentationError", "TabError"})


class AnswerError(Exception):
    """The step has no well-defined answer: its program fails, or its expression or choices are wrong.

    `step_index` and `key` say which key of which step is at fault ("snippet",
    "expression", "choices"); `file_line` is the file line when it is known.
    """

    def __init__(self, step_index: int | None, key: str, message: str | LocalText, file_line: int | None = None):
        text = message if isinstance(message, LocalText) else LocalText(message)
        super().__init__(text.en)
        self.step_index = step_index
        self.key = key
        self.message = text.en
        self.ja = text.ja  # the message in Japanese (None for the worker's own words)
        self.file_line = file_line


class WorkerUnavailable(AnswerError):
    """The tutor's own snippet worker could not run the program: the tutor's fault, never the lesson's."""

    def __init__(self, index: int | None, message: str):
        super().__init__(index, "", message)


@dataclass(frozen=True)
class Answer:
    """The correct answer to a step.

    kind: "tensor" | "number" | "bool" | "none" | "text" for predict steps (the
    value's kind), "error" or "choice" for the other steps, whose `value` is the
    index of the correct choice/option.
    """

    kind: str
    value: Any
    shape: tuple[int, ...] | None
    tolerance: Tolerance
    stdout: str = ""
    run: Any = None  # the engine.sandbox.SandboxRun the answer came from (None for a choice without code)
    raised: Any = None  # error steps: the SnippetError the program raised, None if it ran cleanly

    @property
    def plain(self) -> Plain:
        return Plain(self.kind, self.value, self.shape)


# A number typed with this many decimals (of its mantissa) or more is read at the precision typed:
# the printouts a learner reads show 4 (`0.1667`, `1.0000e-05`).
PRINTOUT_DECIMALS = 4


@dataclass(frozen=True)
class Comparison:
    correct: bool
    cells: np.ndarray | None = None  # per-cell verdict for tensor answers
    close: bool = False  # not correct, but every number agrees at the (too few) decimals typed


def compute_answer(lesson: Lesson, step: Step, builder: ProgramBuilder | None = None) -> Answer:
    """The correct answer to `step` of `lesson` (raises `AnswerError` if the lesson is broken there)."""
    index = lesson.step_index(step)
    builder = builder or ProgramBuilder(lesson)
    program = builder.program(index)
    if isinstance(step, PredictStep):
        return predict_answer(program, step.expression, lesson.tolerance_for(step), index, builder.run)
    if isinstance(step, ErrorStep):
        return _error_answer(step, index, program, builder.run)
    if isinstance(step, ChoiceStep):
        result = run_program(program, index, builder.run) if program else None
        return Answer("choice", step.correct_index, None, lesson.tolerance,
                      stdout=result.stdout if result else "", run=result)
    raise ValueError(f"step {step.id!r} is a {step.kind} step, which has no answer")


def quiz_program(template: QuizTemplate, snippet: str) -> Program:
    return join([(-1, snippet, template.snippet_line)])


def predict_answer(program: Program | None, expression: str, tolerance: Tolerance, index: int | None,
                   run) -> Answer:
    """Run `program` and evaluate `expression` in what it leaves behind."""
    result = run_program(program, index, run, expressions=(expression,))
    from engine.runner.errors import SnippetFailure

    try:
        outcome = result.values[0] if getattr(result, "values", None) else None  # evaluated in the same child
        if outcome is not None and "error" in outcome:
            raise SnippetFailure(outcome["error"])
        value = outcome["value"] if outcome is not None else result.evaluate(expression)
    except SnippetFailure as failure:
        raise AnswerError(index, "expression", say("expression_fails", expression=expression,
                                                   error=f"{failure.error.type}: {failure.error.message}")) from None
    try:
        plain = classify(value)
    except UnsupportedValue as error:
        raise AnswerError(index, "expression", error.text) from None
    return Answer(plain.kind, plain.value, plain.shape, tolerance, stdout=result.stdout, run=result)


def run_program(program: Program | None, index: int | None, run, expressions: tuple[str, ...] = ()):
    """Run `program` (and `expressions` after it); raise `AnswerError` at the failing line if it does not
    run cleanly."""
    if program is None:
        raise AnswerError(index, "snippet", say("no_code"))
    result = run(program.source, expressions=expressions) if expressions else run(program.source)
    if result.error is not None:
        raise _failure(program, result.error, index)
    return result


# an AttributeError for a torch name: PyTorch's own for a typo, or a name PyTorch has and this engine lacks
MISSING_TORCH_NAME = re.compile(r"^(module 'torch[\w.]*'|'Tensor' object) has no attribute")


def _failure(program: Program, error, index: int | None) -> AnswerError:
    if _worker_unavailable(error):
        return WorkerUnavailable(index, error.message)
    part, file_line = program.locate(error.line)
    where = part.step_index if part is not None else index
    refused = error.type in REFUSALS and error.type != "ResourceLimitExceeded"
    key = "program_refused" if refused else "program_fails"
    if error.type == "AttributeError" and MISSING_TORCH_NAME.search(error.message):
        key = "program_lacks_name"  # an author who wrote `x.median()` learns where to look
    return AnswerError(where, "snippet", say(key, error=f"{error.type}: {error.message}"), file_line)


def _worker_unavailable(error) -> bool:
    from engine.sandbox.client import WORKER_UNAVAILABLE  # here: answers are computed in worker threads too

    return error.type == WORKER_UNAVAILABLE


def _error_answer(step: ErrorStep, index: int, program: Program, run) -> Answer:
    result = run(program.source)
    error = result.error
    if error is not None:
        part, _ = program.locate(error.line)
        if error.type in REFUSALS or _worker_unavailable(error) or (part is not None and part.step_index != index):
            raise _failure(program, error, index)
    matching = [i for i, choice in enumerate(step.choices) if error_matches(choice, error)]
    outcome = f"{error.type}: {error.message}" if error else say("runs_without_error")
    if not matching:
        raise AnswerError(index, "choices", say("no_matching_choice", outcome=outcome))
    if len(matching) > 1:
        listed = [repr(step.choices[i].error) for i in matching]
        raise AnswerError(index, "choices", say("two_choices_match", outcome=outcome,
                                                listed=LocalText(" and ".join(listed), " と ".join(listed))))
    return Answer("error", matching[0], None, Tolerance(), stdout=result.stdout, run=result, raised=error)


def error_matches(choice: ErrorChoice, error) -> bool:
    """Whether an error choice ("<Type>: <message start>", "<Type>" or "none") describes `error`."""
    if choice.is_none:
        return error is None
    if error is None:
        return False
    type_name, _, prefix = choice.error.partition(":")
    return type_name.strip().rsplit(".", 1)[-1] == error.type and error.message.strip().startswith(prefix.strip())


def compare(answer: Answer, prediction: Any, half_unit: Any = None, decimals: Any = None) -> Comparison:
    """Whether `prediction` (a value of the answer's kind) is the answer; tensors cell by cell.

    With `half_unit`/`decimals` (how precisely each number was typed, see
    `tutor.answer_input.Reading`), a number typed with at least `PRINTOUT_DECIMALS` decimals is
    right when it agrees with the answer at that precision (`0.1667` for 1/6, as printed); one typed
    with fewer decimals that agrees at its precision makes the verdict `close`, not right.
    """
    if answer.kind in ("error", "choice"):
        return Comparison(prediction == answer.value)
    try:
        plain = classify(prediction)
    except UnsupportedValue:
        return Comparison(False)
    if answer.kind == "text" and plain.kind == "text":
        return Comparison(same_text(answer.value, plain.value))
    correct, cells = same(answer.plain, plain, answer.tolerance.rtol, answer.tolerance.atol)
    if correct or half_unit is None or answer.kind not in ("tensor", "number") or plain.kind not in ("tensor", "number"):
        return Comparison(correct, cells)
    want = np.asarray(answer.value, dtype=np.float64)
    got = np.asarray(plain.value, dtype=np.float64)
    if want.shape != got.shape:
        return Comparison(False, cells)
    half = np.broadcast_to(np.asarray(half_unit, dtype=np.float64), got.shape)
    typed = np.broadcast_to(np.asarray(decimals, dtype=np.int64), got.shape)
    exact = isclose(got, want, answer.tolerance.rtol, answer.tolerance.atol)
    with np.errstate(invalid="ignore", over="ignore"):
        agrees = np.abs(got - want) <= half * (1 + 1e-9) + 1e-300
    precise = exact | (agrees & (typed >= PRINTOUT_DECIMALS))
    rounded = precise | (agrees & (typed >= 1))
    cells = precise if answer.kind == "tensor" else None
    if precise.all():
        return Comparison(True, cells)
    return Comparison(False, cells, close=bool(rounded.all()))


def same_text(answer: str, typed: str) -> bool:
    """`<MulBackward0>`, `'MulBackward0'` and `mulbackward0` name the same thing: PyTorch's names of
    grad_fn classes, dtypes and devices never differ only in case; nor do `(True, False)` and `(True,False)`,
    a printed tuple or size typed without its spaces."""
    def key(text: str) -> str:
        return "".join(text.strip("'\"<> ").split()).casefold()

    return key(typed) == key(answer)

