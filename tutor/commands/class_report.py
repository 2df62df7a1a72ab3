"""`autograd-tutor class …`: the teacher's view of a class folder.

- `class report --class-dir DIR [--csv FILE.csv] [--json]` — who is stuck where: per student and per step
  (hardest first); with `--csv report.csv`, also `report-steps.csv`;
- `class view --class-dir DIR [--theme light]` — the app on the Class screen (refreshes while students work);
- `class reset-student --class-dir DIR NAME` — a student who lost their personal code joins again under
  their name (their progress is kept).

Both read the course `serve` recorded in the class folder's class.json, unless `--lessons` is given.
"""
from __future__ import annotations

from pathlib import Path

import click

from tutor.commands import top_level
from tutor.untrusted import echo, plain, text

_LANG = click.option("--lang", type=click.Choice(["en", "ja"]), default=None, help="Language (default: the global --lang, else from the locale).")
_LESSONS = click.option("--lessons", "lesson_dirs", multiple=True, metavar="DIR",
                        type=click.Path(exists=True, file_okay=False, dir_okay=True),
                        help="The extra lesson folders the class used (default: those recorded by `serve`).")


def _class_dir(value: str) -> Path:
    path = Path(value).expanduser()
    if not path.is_dir():
        raise click.BadParameter(f"{value} is not a folder", param_hint="--class-dir")
    return path


@click.group("class")
def command() -> None:
    """The class's progress, from the class folder that `autograd-tutor serve` writes."""


@command.command("report")
@click.option("--class-dir", required=True, type=click.Path(file_okay=False), help="The class folder.")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Also write FILE (one row per student) and, beside it, FILE's name with -steps "
                   "(report.csv: report-steps.csv; one row per step). UTF-8 with a byte-order mark.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON object instead of tables.")
@_LESSONS
@_LANG
@click.pass_context
def report(ctx: click.Context, class_dir: str, csv_path: str | None, as_json: bool, lesson_dirs: tuple[str, ...],
           lang: str | None) -> None:
    """Who is stuck where: per student the step they are on, the step they failed most, hints, answers shown and
    minutes since their last answer (those who need help first); per step, hardest first, who has not solved it."""
    from tutor.classroom.report import build_report, step_table, student_table, write_csv, write_json
    from tutor.i18n import t

    lang = top_level.language(ctx, lang)
    result = build_report(_class_dir(class_dir), list(lesson_dirs) or None)
    if csv_path:
        try:
            students, steps = write_csv(result, Path(csv_path), lang)
        except OSError as error:
            raise click.BadParameter(plain(f"cannot write {csv_path}: {error.strerror or error}"),
                                     param_hint="--csv") from None
        echo(t("class_csv_written", lang, students=students, steps=steps), err=as_json)
    if as_json:
        echo(write_json(result))
        return
    from rich.console import Console

    console = Console(highlight=False)
    if not result.students:
        console.print(text(t("class_empty", lang, path=class_dir)))
        return
    console.print(student_table(result, lang))
    if result.steps:
        console.print(step_table(result, lang))
    else:
        console.print(t("class_no_steps", lang))
    if result.misconceptions:  # "12 of 30 students: mean without 1/n, on Trying autograd › 3. mean-grad"
        console.print(text(t("class_misconceptions_title", lang), "bold"))
        for line in result.misconception_lines(lang):
            console.print(text("  " + line))
    files = {"damaged": "progress.sqlite3", "newer": "progress.sqlite3", "record": "student.json"}
    for row in result.students:  # a table cell has no room for the file and the fix: said in full below
        if row.problem_kind is not None:
            file = Path(class_dir) / "students" / row.folder / files[row.problem_kind]
            console.print(text(t(f"class_fix_{row.problem_kind}", lang, name=row.name, file=file, reason=row.problem),
                               "red"))


@command.command("view")
@click.option("--class-dir", required=True, type=click.Path(file_okay=False), help="The class folder.")
@_LESSONS
@_LANG
@click.option("--theme", type=click.Choice(["dark", "light"]), default=None,
              help="Colour theme (default: the one given before `class`, else dark).")
@click.pass_context
def view(ctx: click.Context, class_dir: str, lesson_dirs: tuple[str, ...], lang: str | None, theme: str | None) -> None:
    """Open the tutor on the Class screen: the same tables, those who need help first, refreshed while students
    work, and a plot of accuracy per lesson."""
    from tutor.app import TutorApp
    from tutor.classroom.folder import ClassFolder
    from tutor.classroom.report import class_course

    folder = _class_dir(class_dir)
    if lesson_dirs:
        from lessons.course import load_course

        course = load_course(lesson_dirs, user_dir=None)
    else:
        course = class_course(ClassFolder(folder))
    app = TutorApp(lang=top_level.given(ctx, "lang", lang), extra_dirs=lesson_dirs, start="class",
                   theme=top_level.given(ctx, "theme", theme), data_dir=top_level.given(ctx, "data_dir"))
    app.class_dir = folder
    app.class_course = course
    app.run_and_exit()


@command.command("reset-student")
@click.option("--class-dir", required=True, type=click.Path(file_okay=False), help="The class folder.")
@click.argument("name")
@_LANG
@click.pass_context
def reset_student(ctx: click.Context, class_dir: str, name: str, lang: str | None) -> None:
    """Forget NAME's personal code: whoever joins next under that name gets a new one (and NAME's progress)."""
    from tutor.classroom.folder import ClassFolder
    from tutor.classroom.names import InvalidName
    from tutor.i18n import t

    lang = top_level.language(ctx, lang)
    folder = ClassFolder(_class_dir(class_dir))
    try:
        student = folder.student(name)
    except InvalidName as problem:
        raise click.BadParameter(t(problem.reason, lang, **problem.params), param_hint="NAME") from None
    if not folder.exists(student):
        known = ", ".join(plain(other.name) for other in folder.students()) or "—"
        raise click.BadParameter(t("class_no_such_student", lang, name=plain(name), known=known), param_hint="NAME")
    folder.reset_secret(student)
    echo(t("class_student_reset", lang, name=student.name))
