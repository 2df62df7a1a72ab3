"""`autograd-tutor check PATH...`: validate lesson files the way a compiler reports errors.

One line per problem, `path:line: key.path: message`, then a summary. Exit
status 0 when every lesson is valid, 1 when there are problems, 2 for a usage
error (a path that does not exist, `--against-torch` without PyTorch).
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

import click

from tutor.commands.trust import require_confinement, trust_option


@click.command("check")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--against-torch", is_flag=True,
              help="Also run every program with real PyTorch and report any answer that differs.")
@trust_option
def command(paths: tuple[Path, ...], against_torch: bool, trust_lessons: bool) -> None:
    """Validate lesson files, or folders of them (searched recursively for *.toml)."""
    from lessons.against_torch import torch_available

    require_confinement("check", trust_lessons, paths)
    if against_torch and not torch_available():
        click.echo("--against-torch needs PyTorch, which is not installed here (pip install torch).", err=True)
        sys.exit(2)
    with warnings.catch_warnings():  # engine warnings (PyTorch's own, like non-leaf .grad) are not problems
        warnings.simplefilter("ignore")
        problems, checked = check_paths(paths, against_torch=against_torch)
    for problem in sorted(problems, key=lambda p: (p.path, p.line or 0)):
        click.echo(str(problem))
    lessons = "lesson" if checked == 1 else "lessons"
    found = "problem" if len(problems) == 1 else "problems"
    click.echo(f"{checked} {lessons} checked, {len(problems)} {found}")
    sys.exit(1 if problems else 0)


def check_paths(paths: tuple[Path, ...], *, against_torch: bool = False):
    """All problems in the lesson files under `paths`, and how many files were checked."""
    from lessons.course import lesson_files
    from lessons.errors import LessonError

    problems: list[LessonError] = []
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = lesson_files(path)
            if not found:
                problems.append(LessonError(path, "", None, "no lesson files (*.toml) in this folder"))
            files.extend(found)
        else:
            files.append(path)
    first_with_id: dict[str, Path] = {}
    sound = []  # lessons without problems, for --against-torch
    for path in dict.fromkeys(files):
        try:
            lesson, found = _check_file(path)
        except Exception as error:  # a checker bug must still not end in a traceback for the author
            found = [LessonError(path, "", None, f"internal error in the checker ({type(error).__name__}: "
                                                 f"{error}); please report it")]
            lesson = None
        problems.extend(found)
        if lesson is not None and not found:
            sound.append(lesson)
        if lesson is not None:
            if lesson.id in first_with_id:
                problems.append(LessonError(path, "id", lesson.line_of("id"), f"duplicate lesson id '{lesson.id}' "
                                                                              f"(also in {first_with_id[lesson.id]})"))
            first_with_id.setdefault(lesson.id, path)
    if against_torch:
        from lessons.against_torch import compare_with_torch

        problems.extend(compare_with_torch(sound))
    return problems, len(dict.fromkeys(files))


def _check_file(path: Path):
    from lessons.loader import read_lesson
    from lessons.validate import validate_lesson

    lesson, problems = read_lesson(path)
    if lesson is None:
        return None, problems
    return lesson, validate_lesson(lesson)
