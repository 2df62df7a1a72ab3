"""`autograd-tutor explain FILE [--step ID] [--json] [--symbolic/--no-symbolic]`.

Explains every backward call a snippet file (.py) or a lesson step (.toml with
--step) makes: Jacobian (numeric and symbolic), vᵀJ, chain rule, graph, the
backward trace and a finite-difference check — what the app's reveal shows.
Exit status: 0 explained, 1 the program failed (calls made before the failure are
still explained), 2 usage error (no such file, unknown step, broken lesson).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from tutor.commands.snippet_file import printable, read_snippet, usage
from tutor.commands.trust import require_confinement, trust_option

MAX_FILE_BYTES = 1_000_000


@click.command("explain")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--step", "step_id", metavar="ID", help="The step of a lesson file (.toml) to explain.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the rich report.")
@click.option("--symbolic/--no-symbolic", default=True, show_default=True,
              help="Also derive the Jacobian and the chain rule with sympy.")
@click.option("--timeout", type=click.FloatRange(min=0.1, max=60), default=2.0, show_default=True,
              help="Seconds the symbolic part may take per backward call.")
@trust_option
def command(file: Path, step_id: str | None, as_json: bool, symbolic: bool, timeout: float,
            trust_lessons: bool) -> None:
    """Explain why x.grad is what it is, for a snippet FILE or a lesson step."""
    require_confinement("explain", trust_lessons, (file,))
    if file.suffix == ".toml":
        lesson = _lesson(file)
        if step_id is None:
            _usage(f"{file} is a lesson: say which step with --step (one of: {_ids(lesson)})")
        try:
            step = lesson.step(step_id)
        except KeyError:
            _usage(f"{file} has no step '{step_id}' (steps: {_ids(lesson)})")
        from lessons.programs import ProgramBuilder

        program = ProgramBuilder(lesson).program(lesson.step_index(step))
        source = program.source if program is not None else ""
    else:
        if step_id is not None:
            _usage("--step only applies to a lesson file (.toml)")
        source = read_snippet(file, MAX_FILE_BYTES, "explain")
        if source is None:
            _usage(f"{file}: larger than {MAX_FILE_BYTES} characters; a snippet is a few lines")
    from engine.sandbox.explanations import explain_in_worker

    explanation = explain_in_worker(source, symbolic=symbolic, timeout=timeout,
                                    want=("json",) if as_json else ("report",))
    if as_json:
        click.echo(json.dumps(explanation.json, ensure_ascii=False))
    else:
        _print(explanation)
    sys.exit(0 if explanation.ok else 1)


def _print(explanation) -> None:
    from rich.console import Console
    from rich.text import Text

    console = Console()
    if explanation.stdout:
        console.rule("what the program printed")
        console.out(printable(explanation.stdout), end="" if explanation.stdout.endswith("\n") else "\n")
    if not explanation.calls:
        console.print("The program made no backward call, so there is no gradient to explain.")
    for renderable in explanation.report:
        console.print(renderable)
    if explanation.error is not None:
        console.print(Text.assemble(("The program failed: ", "red"), printable(str(explanation.error))))


def _lesson(file: Path):
    from lessons.loader import read_lesson

    if not file.exists():
        _usage(f"{file}: no such file")
    lesson, problems = read_lesson(file)
    if lesson is None or problems:
        for problem in problems:
            click.echo(str(problem), err=True)
        _usage(f"{file}: the lesson has errors (see above); `autograd-tutor check {file}` lists them")
    return lesson


def _ids(lesson) -> str:
    return ", ".join(step.id for step in lesson.steps)


def _usage(message: str) -> None:
    usage("explain", message)
