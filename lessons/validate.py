"""Checking a loaded lesson against the engine: every program runs, every answer exists.

The loader has already checked the schema; here each step's program goes
through the snippet runner, predict expressions are evaluated, an author's
`expect` is compared with what the engine computes, error steps must have
exactly one matching choice, and each quiz template is instantiated for a
few seeds and run.
"""
from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from lessons.answers import MISSING_TORCH_NAME, AnswerError, compute_answer, predict_answer, quiz_program, run_program
from lessons.errors import LessonError
from lessons.messages import say
from lessons.model import MAX_ANSWER_CELLS, ErrorStep, Lesson, PredictStep, ReadStep
from lessons.programs import ProgramBuilder
from lessons.quiztemplate import instantiate
from lessons.text import LocalText
from lessons.values import UnsupportedValue, classify, describe, same

QUIZ_SEEDS = (0, 1, 2)


def validate_lesson(lesson: Lesson, run: Callable | None = None,
                    warnings: list[LessonError] | None = None) -> list[LessonError]:
    """Every problem found by running the lesson's programs (an empty list when it is sound); what is only
    suspicious (see `lessons.lint`) is appended to `warnings` when it is given."""
    builder = ProgramBuilder(lesson, run)
    problems: list[LessonError] = []
    for index, step in enumerate(lesson.steps):
        try:
            if isinstance(step, ReadStep):
                program = builder.program(index)
                if program is not None:
                    run_program(program, index, builder.run)
                continue
            answer = compute_answer(lesson, step, builder)
            if isinstance(step, PredictStep):
                _check_answer_size(lesson, f"steps[{index}]", step, answer, problems)
            if isinstance(step, PredictStep) and step.expect is not None:
                _check_expect(lesson, index, step, answer, problems)
            if isinstance(step, ErrorStep):
                _check_engine_gap(lesson, index, step, answer, problems, warnings)
        except AnswerError as error:
            problems.append(_lesson_error(lesson, f"steps[{error.step_index}]", error))
    for number, template in enumerate(lesson.quiz):
        for seed in QUIZ_SEEDS:
            variant = instantiate(template, seed)
            try:
                answer = predict_answer(quiz_program(template, variant.snippet), template.expression,
                                        lesson.tolerance_for(template), None, builder.run)
                if _check_answer_size(lesson, f"quiz[{number}]", template, answer, problems,
                                      say("with_seed", seed=seed, params=_params(variant.params))):
                    break
            except AnswerError as error:
                lead = say("with_seed", seed=seed, params=_params(variant.params))
                problems.append(_lesson_error(lesson, f"quiz[{number}]", error, lead))
                break
    return list(dict.fromkeys(problems))


def _lesson_error(lesson: Lesson, owner: str, error: AnswerError, lead: LocalText = LocalText("", "")) -> LessonError:
    """The `LessonError` for `error`, its message after `lead` (which quiz seed failed) in both languages."""
    key_path = f"{owner}.{error.key}"
    message = LocalText(lead.en + error.message, lead.ja + (error.ja or error.message))
    return LessonError(lesson.path, key_path, error.file_line or lesson.line_of(key_path), message)


def _check_expect(lesson: Lesson, index: int, step: PredictStep, answer, problems: list[LessonError]) -> None:
    from engine.runner.errors import SnippetFailure

    key_path = f"steps[{index}].expect"
    line = lesson.line_of(key_path)
    try:
        expected = classify(answer.run.evaluate(step.expect))
    except SnippetFailure as failure:
        problems.append(LessonError(lesson.path, key_path, line, say(
            "expect_fails", expect=step.expect, error=f"{failure.error.type}: {failure.error.message}")))
        return
    except UnsupportedValue as error:
        problems.append(LessonError(lesson.path, key_path, line, error.text))
        return
    tolerance = lesson.tolerance_for(step)
    if not same(answer.plain, expected, tolerance.rtol, tolerance.atol)[0]:
        problems.append(LessonError(lesson.path, key_path, line, say(
            "expect_disagrees", expression=step.expression, engine=describe(answer.plain), expect=describe(expected))))


def _check_answer_size(lesson: Lesson, owner: str, step, answer, problems: list[LessonError],
                       lead: LocalText | str = "") -> bool:
    """A tensor answer a learner can type (at most MAX_ANSWER_CELLS cells), with finite values unless the
    step says inf/nan are the point. True when a problem was added."""
    key_path = f"{owner}.expression"
    line = lesson.line_of(key_path)
    if answer.kind == "tensor":
        cells = int(np.asarray(answer.value).size)
        if cells > MAX_ANSWER_CELLS:
            shape = list(answer.shape or ())
            problems.append(LessonError(lesson.path, key_path, line, say(
                "answer_too_big", lead=lead, expression=step.expression, cells=cells, shape=shape,
                cap=MAX_ANSWER_CELLS)))
            return True
    if answer.kind in ("tensor", "number") and not step.nonfinite:
        try:
            values = np.asarray(answer.value, dtype=np.float64)
        except (TypeError, ValueError):
            return False
        if not np.isfinite(values).all():
            which = sorted({"nan" if np.isnan(v) else "inf" for v in values.ravel() if not np.isfinite(v)})
            problems.append(LessonError(lesson.path, key_path, line, say(
                "answer_nonfinite", lead=lead, expression=step.expression,
                which=LocalText(" and ".join(which), " と ".join(which)))))
            return True
    return False


_ENGINE_GAP = re.compile(r"not supported by this engine")


def _check_engine_gap(lesson: Lesson, index: int, step: ErrorStep, answer, problems: list[LessonError],
                      warnings: list[LessonError] | None) -> None:
    """An error step must teach PyTorch's behaviour, not a gap of this engine (docs/api.md lists what it has)."""
    raised = answer.raised
    if raised is None:
        return
    key_path = f"steps[{index}].choices"
    if raised.type == "NotImplementedError" and _ENGINE_GAP.search(raised.message):
        problems.append(LessonError(lesson.path, key_path, lesson.line_of(key_path), say(
            "engine_gap", error=f"{raised.type}: {raised.message}")))
    elif raised.type == "AttributeError" and MISSING_TORCH_NAME.search(raised.message) and warnings is not None:
        warnings.append(LessonError(lesson.path, key_path, lesson.line_of(key_path), say(
            "torch_name_missing", error=raised.message)))


def _params(params: dict[str, object]) -> str:
    return ", ".join(f"{name} = {value!r}" for name, value in params.items())
