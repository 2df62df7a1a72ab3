"""Checking a loaded lesson against the engine: every program runs, every answer exists.

The loader has already checked the schema; here each step's program goes
through the snippet runner, predict expressions are evaluated, an author's
`expect` is compared with what the engine computes, error steps must have
exactly one matching choice, and each quiz template is instantiated for a
few seeds and run.
"""
from __future__ import annotations

from collections.abc import Callable

from lessons.answers import AnswerError, compute_answer, predict_answer, quiz_program, run_program
from lessons.errors import LessonError
from lessons.model import Lesson, PredictStep, ReadStep
from lessons.programs import ProgramBuilder
from lessons.quiztemplate import instantiate
from lessons.values import UnsupportedValue, classify, describe, same

QUIZ_SEEDS = (0, 1, 2)


def validate_lesson(lesson: Lesson, run: Callable | None = None) -> list[LessonError]:
    """Every problem found by running the lesson's programs (an empty list when it is sound)."""
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
            if isinstance(step, PredictStep) and step.expect is not None:
                _check_expect(lesson, index, step, answer, problems)
        except AnswerError as error:
            problems.append(_lesson_error(lesson, f"steps[{error.step_index}]", error))
    for number, template in enumerate(lesson.quiz):
        for seed in QUIZ_SEEDS:
            variant = instantiate(template, seed)
            try:
                predict_answer(quiz_program(template, variant.snippet), template.expression,
                               lesson.tolerance_for(template), None, builder.run)
            except AnswerError as error:
                error.message = f"with seed {seed} ({_params(variant.params)}): {error.message}"
                problems.append(_lesson_error(lesson, f"quiz[{number}]", error))
                break
    return list(dict.fromkeys(problems))


def _lesson_error(lesson: Lesson, owner: str, error: AnswerError) -> LessonError:
    key_path = f"{owner}.{error.key}"
    return LessonError(lesson.path, key_path, error.file_line or lesson.line_of(key_path), error.message)


def _check_expect(lesson: Lesson, index: int, step: PredictStep, answer, problems: list[LessonError]) -> None:
    from engine.runner.errors import SnippetFailure

    key_path = f"steps[{index}].expect"
    line = lesson.line_of(key_path)
    try:
        expected = classify(answer.run.evaluate(step.expect))
    except SnippetFailure as failure:
        problems.append(LessonError(lesson.path, key_path, line, f"`{step.expect}` fails: {failure.error.type}: "
                                                                 f"{failure.error.message}"))
        return
    except UnsupportedValue as error:
        problems.append(LessonError(lesson.path, key_path, line, str(error)))
        return
    tolerance = lesson.tolerance_for(step)
    if not same(answer.plain, expected, tolerance.rtol, tolerance.atol)[0]:
        problems.append(LessonError(lesson.path, key_path, line,
                                    f"the engine computes `{step.expression}` = {describe(answer.plain)}, "
                                    f"but expect gives {describe(expected)}"))


def _params(params: dict[str, object]) -> str:
    return ", ".join(f"{name} = {value!r}" for name, value in params.items())
