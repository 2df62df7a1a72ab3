"""`autograd-tutor grade LESSON:STEP ANSWER [--json]`: grade an answer as the app does, for a course's
autograder or a notebook.

LESSON is a lesson id (`pack/lesson` for a pack's) or its file; STEP a step id or 1-based number. ANSWER is
what a learner would type: a prediction (a number, a nested list, a pasted printout, a formula of the
program's names), or for a choice or error step the option's text or its number in the lesson file.
`--json` prints one object on stdout whatever happens, so that an autograder always has one to read:
{"correct", "close", "diagnosis", "error"}. Graded: "correct" and "close" are booleans, "diagnosis" null or
{"id", "message"} (the misconception behind a wrong prediction when the engine's buggy rules name it beyond
doubt), "error" null. Refused: "correct", "close" and "diagnosis" are null and "error" is {"kind", "message"}
(the message also goes to stderr, as without `--json`). The kinds (`KINDS`) are stable names to branch on.
Exit status: 0 graded (right or wrong), 1 an answer that cannot be read, 2 anything else refused.
"""
from __future__ import annotations

import sys

import click

from tutor.commands.trust import confinement_refusal, trust_option
from tutor.i18n import t
from tutor.untrusted import echo, json_dumps

KINDS = {  # a refusal's kind -> its exit status
    "unreadable_answer": 1,    # the answer is not a number, list, printout, formula or option
    "unknown_lesson": 2,       # no such lesson id, or a file that is not in the course
    "broken_lesson": 2,        # the lesson's file has problems (`check` lists them)
    "unknown_step": 2,
    "no_step": 2,              # LESSON without :STEP
    "read_step": 2,            # a read step has nothing to grade
    "no_answer": 2,            # the step's own answer cannot be computed (`check` says why)
    "not_sandboxed": 2,        # a stranger's lesson where the OS sandbox is missing (see --trust-lessons)
    "worker_broken": 2,        # the snippet worker cannot start
    "usage": 2,                # the command line itself (a missing ANSWER, an unknown option)
}
_OPEN_KINDS = {"open_no_lesson": "unknown_lesson", "open_no_file": "unknown_lesson",
               "open_not_in_course": "unknown_lesson", "open_broken": "broken_lesson", "open_no_step": "unknown_step"}


class Refusal(Exception):
    """Why an answer is not graded: `kind` (a key of `KINDS`) and the message in the chosen language."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind, self.message = kind, message


class _GradeCommand(click.Command):
    """With `--json`, a command line click refuses is a refusal on stdout too (click's own message and usage
    still go to stderr, with exit status 2)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        as_json = "--json" in args
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as error:
            if as_json:
                _print_json(None, Refusal("usage", error.format_message()))
            raise


@click.command("grade", cls=_GradeCommand, context_settings={"ignore_unknown_options": True})  # ANSWER may be `-4` or `-0.5 1`
@click.argument("target", metavar="LESSON:STEP")
@click.argument("answer_text", metavar="ANSWER")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object on stdout, graded or refused (see above).")
@click.option("--lang", type=click.Choice(["en", "ja"]), default=None, help="Language of the verdict.")
@click.option("--lessons", "lesson_dirs", multiple=True, metavar="DIR",
              type=click.Path(exists=True, file_okay=False, dir_okay=True), help="Also load the lessons in DIR.")
@click.option("--data-dir", type=click.Path(file_okay=False), default=None,
              help="Where installed packs are (default: as the app).")
@trust_option
@click.pass_context
def command(ctx: click.Context, target: str, answer_text: str, as_json: bool, lang: str | None,
            lesson_dirs: tuple[str, ...], data_dir: str | None, trust_lessons: bool) -> None:
    """Grade ANSWER to step STEP of LESSON, exactly as the tutor would.

    \b
    --json prints one object on stdout, whatever happens:
      graded   {"correct": bool, "close": bool, "diagnosis": null | {"id", "message"}, "error": null}
      refused  {"correct": null, "close": null, "diagnosis": null, "error": {"kind", "message"}}
    kinds: unreadable_answer, unknown_lesson, broken_lesson, unknown_step, no_step, read_step,
    no_answer, not_sandboxed, worker_broken, usage

    \b
    Exit status: 0 graded (right or wrong), 1 an answer that cannot be read (unreadable_answer),
    2 anything else refused.
    """
    from tutor.commands import top_level

    lang = top_level.language(ctx, lang)
    try:
        verdict, diagnosis = _verdict(ctx, target, answer_text, lesson_dirs, data_dir, trust_lessons, lang)
    except Refusal as refusal:
        if as_json:
            _print_json(None, refusal)
        echo(f"autograd-tutor grade: {refusal.message}", err=True)
        sys.exit(KINDS[refusal.kind])
    if as_json:
        _print_json({"correct": verdict.correct, "close": bool(verdict.close and not verdict.correct),
                     "diagnosis": None if diagnosis is None else {"id": diagnosis.id,
                                                                  "message": diagnosis.message(lang)}}, None)
    else:
        echo(_describe(verdict, lang) + ("" if diagnosis is None else "\n" + diagnosis.message(lang)))


def _print_json(graded: dict | None, refusal: Refusal | None) -> None:
    """The one object `--json` prints: the same four keys either way."""
    if refusal is not None:
        graded = {"correct": None, "close": None, "diagnosis": None,
                  "error": {"kind": refusal.kind, "message": refusal.message}}
    else:
        graded = {**graded, "error": None}
    echo(json_dumps(graded))


def _verdict(ctx: click.Context, target: str, answer_text: str, lesson_dirs: tuple[str, ...], data_dir: str | None,
             trust_lessons: bool, lang: str):
    """(verdict, diagnosis), or Refusal."""
    from lessons.answers import AnswerError, compute_answer
    from tutor.answer_input import AnswerFormatError
    from tutor.commands import top_level

    course, lesson, step = _find(target, top_level.lesson_dirs(ctx, lesson_dirs), top_level.given(ctx, "data_dir", data_dir),
                                 lang)
    if lesson.path is not None:
        refusal = confinement_refusal(top_level.given(ctx, "trust_lessons", trust_lessons), (lesson.path,), lang=lang)
        if refusal is not None:
            raise Refusal(*refusal)
    try:
        answer = compute_answer(lesson, step)
    except AnswerError as error:
        reason = error.ja if lang == "ja" and error.ja else error.message
        raise Refusal("no_answer", t("grade_no_answer", lang, target=target, reason=reason,
                                     where=lesson.path or lesson.id)) from None
    try:
        return _grade(course, lesson, step, answer, answer_text)
    except AnswerFormatError as error:
        raise Refusal("unreadable_answer", error.message(lang)) from None


def _find(target: str, lesson_dirs: tuple[str, ...], data_dir: str | None, lang: str):
    from lessons.course import load_course
    from tutor.commands.open_target import OpenError, resolve
    from tutor.paths import cache_dir, lessons_dir

    course = load_course(lesson_dirs, user_dir=lessons_dir(data_dir), cache_path=cache_dir(data_dir) / "lessons.json")
    try:
        lesson_id, step_id = resolve(target, course)
    except OpenError as error:
        raise Refusal(_OPEN_KINDS[error.key], error.message(lang)) from None
    lesson = next(lesson for lesson in course.lessons if lesson.id == lesson_id)
    if step_id is None:
        raise Refusal("no_step", t("grade_which_step", lang, target=target, steps=", ".join(s.id for s in lesson.steps)))
    step = lesson.step(step_id)
    if step.kind == "read":
        raise Refusal("read_step", t("grade_read_step", lang, target=target))
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
