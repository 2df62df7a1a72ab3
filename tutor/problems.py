"""What a learner is told about a problem in a lesson file: where it is, never the author's details.

A message such as "unknown key 'stepz' — did you mean 'steps'?" is advice for the lesson's author,
who sees it (with the fix) in `autograd-tutor check`; a learner only needs to know that the file is
at fault, not them, and whom to tell.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tutor.i18n import t


@dataclass(frozen=True)
class WorkerProblem:
    """The tutor's snippet worker could not run a step's program: the tutor's problem, not the lesson's."""

    reason: str


def where(path: str | os.PathLike[str] | None, line: int | None) -> str:
    """`squares.toml:27`: the file's name and, when known, the line."""
    name = Path(path).name if path is not None else "?"
    return f"{name}:{line}" if line is not None else name


def broken_notice(error, lang: str) -> str:
    """A lesson file that did not load (a `LessonError`), in the learner's words."""
    return f"{where(error.path, error.line)}: {t('lesson_file_problem', lang)}"
