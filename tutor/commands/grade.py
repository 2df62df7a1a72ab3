"""`autograd-tutor grade LESSON:STEP ANSWER [--json]`: grade an answer as the app does, for a course's
autograder or a notebook.

LESSON is a lesson id (`pack/lesson` for a pack's) or its file; STEP a step id or 1-based number. ANSWER is
what a learner would type: a prediction (a number, a nested list, a pasted printout, a formula of the
program's names), or for a choice or error step the option's text or its number in the lesson file.
`--json` prints one object: {"correct": bool, "close": bool, "diagnosis": null | {"id": …, "message": …}},
the misconception behind a wrong prediction when the engine's buggy rules name it beyond doubt.
Exit status: 0 graded (right or wrong), 1 an answer that cannot be read, 2 an unknown lesson or step.
"""
from __future__ import annotations

import json
import sys

import click

from tutor.commands.trust import require_confinement, trust_option
from tutor.i18n import t
from tutor.untrusted import echo


@click.command("grade", context_settings={"ignore_unknown_options": True})  # ANSWER may be `-4` or `-0.5 1`
@click.argument("target", metavar="LESSON:STEP")
@click.argument("answer_text", metavar="ANSWER")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the verdict.")
@click.option("--lang", type=click.Choice(["en", "ja"]), default=None, help="Language of the verdict.")
@click.option("--lessons", "lesson_dirs", multiple=True, metavar="DIR",
              type=click.Path(exists=True, file_okay=False, dir_okay=True), help="Also load the lessons in DIR.")
@click.option("--data-dir", type=click.Path(file_okay=False), default=None,
              help="Where installed packs are (default: as the app).")
@trust_option
@click.pass_context
def command(ctx: click.Context, target: str, answer_text: str, as_json: bool, lang: str | None,
            lesson_dirs: tuple[str, ...], data_dir: str | None, trust_lessons: bool) -> None:
    """Grade ANSWER to step STEP of LESSON, exactly as the tutor would."""
    from tutor.commands import top_level

    lang = top_level.language(ctx, lang)
    course, lesson, step = _find(target, top_level.lesson_dirs(ctx, lesson_dirs), top_level.given(ctx, "data_dir", data_dir),
                                 lang)
    if lesson.path is not None:
        require_confinement("grade", top_level.given(ctx, "trust_lessons", trust_lessons), (lesson.path,), lang=lang)
    from lessons.answers import AnswerError, compute_answer

    try:
        answer = compute_answer(lesson, step)
    except AnswerError as error:
        reason = error.ja if lang == "ja" and error.ja else error.message
        _fail(2, t("grade_no_answer", lang, target=target, reason=reason, where=lesson.path or lesson.id))
    from tutor.answer_input import AnswerFormatError

    try:
        verdict, diagnosis = _grade(course, lesson, step, answer, answer_text)
    except AnswerFormatError as error:
        _fail(1, error.message(lang))
    if as_json:
        echo(json.dumps({"correct": verdict.correct, "close": bool(verdict.close and not verdict.correct),
                         "diagnosis": None if diagnosis is None else {"id": diagnosis.id,
                                                                      "message": diagnosis.message(lang)}}))
    else:
        echo(_describe(verdict, lang) + ("" if diagnosis is None else "\n" + diagnosis.message(lang)))


def _find(target: str, lesson_dirs: tuple[str, ...], data_dir: str | None, lang: str):
    from lessons.course import load_course
    from tutor.commands.open_target import OpenError, resolve
    from tutor.paths import cache_dir, lessons_dir

    course = load_course(lesson_dirs, user_dir=lessons_dir(data_dir), cache_path=cache_dir(data_dir) / "lessons.json")
    try:
        lesson_id, step_id = resolve(target, course)
    except OpenError as error:
        _fail(2, error.message(lang))
    lesson = next(lesson for lesson in course.lessons if lesson.id == lesson_id)
    if step_id is None:
        _fail(2, t("grade_which_step", lang, target=target, steps=", ".join(s.id for s in lesson.steps)))
    step = lesson.step(step_id)
    if step.kind == "read":
        _fail(2, t("grade_read_step", lang, target=target))
    return course, lesson, step


def _grade(course, lesson, step, answer, text: str):
    """The verdict (and any diagnosis) through the app's own path: predictions as the step view reads them,
    options by label."""
    from lessons.answers import Comparison, compare
    from tutor.grading import grade_prediction, pick
    from tutor.i18n import t

    if step.kind == "predict":  # a bool prediction too: True or False, the app's two options
        return grade_prediction(step, answer, text, lambda lang: {other.id: other.title.get(lang)
                                                                  for other in course.lessons},
                                here=f"{lesson.id}:{step.id}")
    if step.kind == "choice":
        labels = [[option.text.get("en"), option.text.get("ja")] for option in step.options]
    else:
        labels = [[t("error_none", "en"), t("error_none", "ja"), "none"] if choice.is_none
                  else [choice.error, choice.error.partition(":")[0]] for choice in step.choices]
    return (compare(answer, pick(labels, text)) if answer.kind in ("choice", "error") else Comparison(False)), None


def _describe(verdict, lang: str) -> str:
    from tutor.i18n import t

    if verdict.correct:
        return t("correct", lang)
    if verdict.close:
        return t("answer_close", lang)
    message = t("wrong", lang)
    if verdict.cells is not None and verdict.cells.size > 1:
        wrong = int((~verdict.cells).sum())
        message += (" " if lang == "en" else "") + t("grade_wrong_cells", lang, count=wrong, total=int(verdict.cells.size))
    return message


def _fail(status: int, message: str) -> None:
    echo(f"autograd-tutor grade: {message}", err=True)
    sys.exit(status)
