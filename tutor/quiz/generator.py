"""Turn a template and a seed into a quiz question whose answer comes from the engine.

A question is a lesson step (`PredictStep` or `ErrorStep` from `lessons.model`)
inside a one-step synthetic lesson, so the app shows, checks and explains it
exactly like a lesson step. Built-in templates (`tutor.quiz.builtin`) and the
`[[quiz]]` templates of lesson files (instantiated by
`lessons.quiztemplate.instantiate`) go through the same door.

The same (template, seed) always gives the same question. A variant whose
answer would be degenerate (not finite, all zero, huge) is redrawn from the
same seeded stream, so callers never see one.
"""
from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Union

import numpy as np

from lessons.answers import Answer
from lessons.model import (
    ErrorChoice,
    ErrorStep,
    Lesson,
    LocalText,
    PredictStep,
    QuizTemplate,
    Tolerance,
)
from lessons.outline import QuizLesson
from tutor.i18n import WordedError
from tutor.quiz.builtin import TEMPLATES, BuiltinTemplate
from tutor.quiz.program import Program

QUIZ_TOLERANCE = Tolerance(rtol=1e-3, atol=1e-4)  # answers typed from 4-decimal printouts must pass
MAX_DRAWS = 50
QUIZ_TITLE = LocalText("Quiz", "クイズ")

ERROR_CHOICES = (
    ErrorChoice(
        "RuntimeError: grad can be implicitly created only for scalar outputs",
        LocalText("`backward()` without an argument only works for a single number; a tensor output needs "
                  "`backward(v)`.",
                  "引数なしの `backward()` が使えるのは、出力が 1 つの数（要素 1 個）のときだけです。"
                  "テンソル出力には `backward(v)` が必要です。"),
    ),
    ErrorChoice(
        "RuntimeError: Trying to backward through the graph a second time",
        LocalText("The first backward freed the values the graph saved; pass `retain_graph=True` to keep them.",
                  "1 回目の backward で保存値が解放されます。残すには `retain_graph=True` を渡します。"),
    ),
    ErrorChoice(
        "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
        LocalText("Nothing in the computation requires gradients, so there is no graph to go back through.",
                  "`requires_grad=True` のテンソルがないので、さかのぼるグラフがありません。"),
    ),
    ErrorChoice(
        "none",
        LocalText("Runs cleanly: a scalar output, a graph that still exists, a leaf that requires grad.",
                  "エラーなし：出力はスカラー、グラフは残っていて、葉テンソルは `requires_grad=True` です。"),
    ),
)


class QuizError(WordedError):
    """A template cannot produce a usable question (names the template and the problem; `said` in a language)."""


@dataclass(frozen=True)
class Template:
    """A source of questions: a built-in template or a lesson's `[[quiz]]` entry."""

    id: str  # built-in id, or "<lesson id>/<template id>"
    concepts: tuple[str, ...]
    source: Union[BuiltinTemplate, QuizTemplate]
    lesson: Lesson | QuizLesson | None = None  # its lesson, loaded or (a quiz opened at start-up) from the outline


@dataclass(frozen=True)
class Question:
    id: str  # "<template id>#<seed>": the step id recorded in the progress store
    template_id: str
    seed: int
    concepts: tuple[str, ...]
    step: PredictStep | ErrorStep
    lesson: Lesson  # a one-step lesson holding `step`, for the app's lesson machinery
    answer: Answer  # from `lessons.answers.compute_answer`: compare predictions with `lessons.answers.compare`
    program: Program | None = None  # built-in templates: the structured program (used by the tests)

    @property
    def kind(self) -> str:
        return self.step.kind


def builtin_templates() -> list[Template]:
    return [Template(t.id, t.concepts, t) for t in TEMPLATES]


def lesson_templates(lessons: Iterable[Lesson | QuizLesson]) -> list[Template]:
    return [Template(f"{lesson.id}/{t.id}", t.concepts, t, lesson) for lesson in lessons for t in lesson.quiz]


def generate(template: Template, seed: int) -> Question:
    """The question for (template, seed); raises `QuizError` if the template cannot make one."""
    if isinstance(template.source, BuiltinTemplate):
        return _from_builtin(template, seed)
    return _from_lesson(template, seed)


def _from_builtin(template: Template, seed: int) -> Question:
    source = template.source
    rng = np.random.default_rng([seed, zlib.crc32(template.id.encode())])

    def draw(_: int) -> tuple[PredictStep | ErrorStep, Program]:
        program = source.build(rng)
        text, *hints = (_fill(t, program.target) for t in (source.text, *source.hints))
        step_id = f"{template.id}-{seed}"
        if source.kind == "error":
            return ErrorStep(id=step_id, text=text, snippet=program.snippet(), hints=tuple(hints),
                             choices=ERROR_CHOICES), program
        return PredictStep(id=step_id, text=text, snippet=program.snippet(), hints=tuple(hints),
                           expression=program.expression, tolerance=QUIZ_TOLERANCE), program

    return _first_usable(template, seed, draw)


def _from_lesson(template: Template, seed: int) -> Question:
    from lessons.quiztemplate import instantiate

    source = template.source

    def draw(index: int) -> tuple[PredictStep, None]:
        try:
            variant = instantiate(source, seed + index * 1_000_003)
        except (KeyError, IndexError, ValueError) as error:  # a placeholder without a parameter, say
            raise QuizError("quiz_cannot_fill", id=template.id, error=repr(error)) from error
        step = PredictStep(id=f"{source.id}-{seed}", text=variant.text, snippet=variant.snippet,
                           expression=variant.expression, tolerance=source.tolerance, hints=source.hints,
                           explanation=source.explanation)
        return step, None

    return _first_usable(template, seed, draw)


def _first_usable(template: Template, seed: int, draw) -> Question:
    """Draw variants until one has a well-defined, non-degenerate answer."""
    from lessons.answers import AnswerError, compute_answer

    problem = "no draw"
    for index in range(MAX_DRAWS):
        step, program = draw(index)
        lesson = _lesson_for(template, step)
        try:
            answer = compute_answer(lesson, step)
        except AnswerError as error:
            problem = error.message
            continue
        problem = _degenerate(answer)
        if problem is None:
            return Question(f"{template.id}#{seed}", template.id, seed, template.concepts, step, lesson, answer, program)
    raise QuizError("quiz_no_usable", id=template.id, seed=seed, problem=problem)


def _lesson_for(template: Template, step: PredictStep | ErrorStep) -> Lesson:
    """A one-step lesson holding `step` (in the template's own lesson, when it has one)."""
    base = template.lesson
    return Lesson(
        format_version=1,
        id=base.id if base else "quiz",
        order=None,
        title=base.title if base else QUIZ_TITLE,
        summary=base.summary if base else QUIZ_TITLE,
        concepts=template.concepts,
        source=base.source if base else None,
        tolerance=base.tolerance if base else QUIZ_TOLERANCE,
        steps=(step,),
    )


def _degenerate(answer: Answer) -> str | None:
    """Why a numeric answer is unusable for a quiz (not finite, all zero, huge), or None."""
    if answer.kind not in ("tensor", "number"):
        return None
    values = np.abs(np.asarray(answer.value, dtype=np.float64))
    if not np.all(np.isfinite(values)) or values.max() < 1e-3 or values.max() > 1e4:
        return f"degenerate answer {np.asarray(answer.value).tolist()}"
    return None


def _fill(text: LocalText, target: str) -> LocalText:
    return LocalText(text.en.format(target=target), text.ja.format(target=target) if text.ja else None)
