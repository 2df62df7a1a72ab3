"""`autograd-tutor explain [FILE] [--step ID | --step quiz:ID --seed N] [--json] [--lang ja] [--symbolic/--no-symbolic]`.

Explains every backward call a snippet file (.py), a lesson step (.toml with --step) or a quiz
question (--step quiz:ID --seed N: a built-in template, or a `[[quiz]]` template of the lesson FILE)
makes: Jacobian (numeric and symbolic), vᵀJ, chain rule, graph, the backward trace and a
finite-difference check — what the app's reveal shows, in English or Japanese (--lang). With
--json, lesson steps and quiz questions also carry the step's id, its expression and its answer.
Exit status: 0 explained, 1 the program failed (calls made before the failure are
still explained), 2 usage error (no such file, unknown step, broken lesson).
"""
from __future__ import annotations

import sys
from pathlib import Path

import click

from tutor import i18n
from tutor.commands.snippet_file import read_snippet, usage
from tutor.commands.trust import require_confinement, trust_option
from tutor.untrusted import echo, json_dumps, plain, text

MAX_FILE_BYTES = 1_000_000


@click.command("explain")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path), required=False)
@click.option("--step", "step_id", metavar="ID",
              help="The step of a lesson file (.toml) to explain, or quiz:ID for a quiz template.")
@click.option("--seed", type=int, default=0, show_default=True, help="Which question a quiz template makes.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the rich report.")
@click.option("--lang", type=click.Choice(["en", "ja"]), default=None,
              help="The language of the report (default: the global --lang, else from the locale).")
@click.option("--symbolic/--no-symbolic", default=True, show_default=True,
              help="Also derive the Jacobian and the chain rule with sympy.")
@click.option("--timeout", type=click.FloatRange(min=0.1, max=60), default=2.0, show_default=True,
              help="Seconds the symbolic part may take per backward call.")
@trust_option
@click.pass_context
def command(ctx: click.Context, file: Path | None, step_id: str | None, seed: int, as_json: bool, lang: str | None,
            symbolic: bool, timeout: float, trust_lessons: bool) -> None:
    """Explain why x.grad is what it is, for a snippet FILE, a lesson step or a quiz question."""
    from tutor.commands import top_level

    lang = top_level.language(ctx, lang)
    require_confinement("explain", top_level.given(ctx, "trust_lessons", trust_lessons),
                        (file,) if file is not None else (), lang=lang)
    step_info = None
    if step_id is not None and step_id.startswith("quiz:"):
        source, step_info = _quiz(file, step_id.removeprefix("quiz:"), seed, lang)
    elif file is None:
        _usage(i18n.t("explain_which_file", lang))
    elif file.suffix == ".toml":
        lesson = _lesson(file, lang)
        if step_id is None:
            _usage(i18n.t("explain_which_step", lang, file=file, steps=_ids(lesson)))
        try:
            step = lesson.step(step_id)
        except KeyError:
            _usage(i18n.t("explain_no_step", lang, file=file, step=step_id, steps=_ids(lesson)))
        from lessons.programs import ProgramBuilder

        program = ProgramBuilder(lesson).program(lesson.step_index(step))
        source = program.source if program is not None else ""
        step_info = {"lesson": lesson.id, "id": step.id, "expression": getattr(step, "expression", None),
                     "answer": _answer(lesson, step) if as_json else None}
    else:
        if step_id is not None:
            _usage(i18n.t("explain_step_needs_lesson", lang))
        source = read_snippet(file, MAX_FILE_BYTES, "explain", lang)
        if source is None:
            _usage(i18n.t("explain_too_large", lang, file=file, limit=MAX_FILE_BYTES))
    from rich.console import Console

    from engine.sandbox.explanations import explain_in_worker

    console = Console()
    explanation = explain_in_worker(source, symbolic=symbolic, timeout=timeout, want=("json",) if as_json else ("report",),
                                    lang=lang, width=console.width, clean=plain)
    if as_json:
        data = dict(explanation.json or {})
        if step_info is not None:
            data["step"] = step_info
        echo(json_dumps(data))
    else:
        _print(console, explanation, lang, step_info)
    sys.exit(0 if explanation.ok else 1)


def _print(console, explanation, lang: str, step_info: dict | None) -> None:
    from rich.text import Text

    from engine.explain.messages import t

    # only Text and the renderables rebuilt (cleaned) from the sandbox are printed: nothing is read as markup
    if step_info is not None and step_info.get("expression"):
        console.print(text(Text.assemble((step_info["id"], "bold"), ": ", step_info["expression"])), highlight=False)
    if explanation.stdout:
        console.rule(text(t("printed", lang)))
        console.out(plain(explanation.stdout), end="" if explanation.stdout.endswith("\n") else "\n")
    if explanation.fault:  # the explanation could not be made: say so, never "the program failed"
        console.print(text(Text.assemble((t("explanation_failed", lang) + " ", "red"), explanation.error.said(lang, introduced=True))))
        return
    if not explanation.calls and explanation.error is None:  # a backward that raised is a call: its error says why
        console.print(text(t("no_backward", lang)))
    for renderable in explanation.report:
        console.print(renderable)
    if explanation.error is not None:
        console.print(text(Text.assemble((t("program_failed", lang) + " ", "red"), explanation.error.said(lang, introduced=True))))



def _answer(lesson, step) -> dict | None:
    """The step's answer as plain data (None when the step has none, e.g. a broken program)."""
    from lessons.answers import AnswerError, compute_answer

    try:
        answer = compute_answer(lesson, step)
    except AnswerError as error:
        return {"error": error.message}
    return _answer_data(answer)


def _answer_data(answer) -> dict:
    from engine.explain.model import plain

    value = answer.value
    if hasattr(value, "tolist"):
        value = value.tolist()
    return {"kind": answer.kind, "value": plain(value), "shape": None if answer.shape is None else list(answer.shape)}


def _quiz(file: Path | None, template_id: str, seed: int, lang: str) -> tuple[str, dict]:
    """The program and step data of the question a quiz template makes with `seed`."""
    from lessons.programs import ProgramBuilder
    from tutor.quiz.generator import QuizError, builtin_templates, generate, lesson_templates

    templates = builtin_templates()
    if file is not None and file.suffix == ".toml":
        templates = lesson_templates([_lesson(file, lang)]) + templates
    matches = [tp for tp in templates if tp.id == template_id or tp.id.endswith("/" + template_id)]
    if not matches:
        _usage(i18n.t("explain_no_template", lang, id=template_id, ids=", ".join(tp.id for tp in templates)))
    try:
        question = generate(matches[0], seed)
    except QuizError as error:
        _usage(error.said(lang))
    program = ProgramBuilder(question.lesson).program(question.lesson.step_index(question.step))
    info = {"quiz": matches[0].id, "seed": seed, "id": question.id,
            "expression": getattr(question.step, "expression", None), "answer": _answer_data(question.answer)}
    return (program.source if program is not None else ""), info


def _lesson(file: Path, lang: str):
    from lessons.loader import read_lesson

    if not file.exists():
        _usage(i18n.t("cli_no_such_file", lang, file=file))
    lesson, problems = read_lesson(file)
    if lesson is None or problems:
        for problem in problems:
            echo(problem.localized(lang), err=True)
        _usage(i18n.t("explain_lesson_errors", lang, file=file))
    return lesson


def _ids(lesson) -> str:
    return ", ".join(step.id for step in lesson.steps)


def _usage(message: str) -> None:
    usage("explain", message)
