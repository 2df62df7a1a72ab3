"""`autograd-tutor --open LESSON[:STEP]`: the lesson and step an author's preview opens at.

Resolved before the app starts, so that a typo is a usage error naming what exists (exit status 2)
and a lesson whose file is broken prints its `check` messages (exit status 1), instead of an app
that opens on the course and leaves the author wondering. LESSON is a lesson id (`intro/first` for
a pack's lesson) or the path of its file; STEP is a step id or a 1-based step number (an id wins).
"""
from __future__ import annotations

import difflib
import re
from pathlib import Path

_DECLARED_ID = re.compile(r'(?m)^\s*id\s*=\s*"([^"\n]*)"')


class OpenError(Exception):
    """Why `--open` cannot open its target (`message(lang)`: the i18n string `key`, then a broken lesson's
    `problems`, one a line); `status` is the exit status."""

    def __init__(self, key: str, status: int = 2, problems=(), **params) -> None:
        self.key, self.status, self.problems, self.params = key, status, tuple(problems), params
        super().__init__(self.message("en"))

    def message(self, lang: str) -> str:
        from tutor.i18n import t

        params = {name: value(lang) if callable(value) else value for name, value in self.params.items()}
        return "\n".join([t(self.key, lang, **params), *(problem.localized(lang) for problem in self.problems)])


def resolve(target: str, course) -> tuple[str, str | None]:
    """(lesson id, step id or None) for `target` in `course`, or OpenError saying what exists."""
    name, step = _split(target)
    path = Path(name)
    if path.suffix == ".toml" or path.is_file():
        lesson = _by_path(path, course)
    else:
        lesson = _by_id(name, course)
    return lesson.id, (_step(lesson, step) if step is not None else None)


def _split(target: str) -> tuple[str, str | None]:
    """`name:step` -> (name, step); a target that is an existing file keeps its colons."""
    if Path(target).is_file() or ":" not in target:
        return target, None
    name, _, step = target.rpartition(":")
    return name, step


def _by_path(path: Path, course):
    if not path.is_file():
        raise OpenError("open_no_file", path=path)
    wanted = path.resolve()
    for lesson in course.lessons:
        if lesson.path is not None and lesson.path.resolve() == wanted:
            return lesson
    for error in course.broken:
        if Path(error.path).resolve() == wanted:
            raise _broken(Path(error.path), error)
    raise OpenError("open_not_in_course", path=path, folder=path.parent)


def _by_id(lesson_id: str, course):
    for lesson in course.lessons:
        if lesson.id == lesson_id:
            return lesson
    for error in course.broken:
        if _declares(Path(error.path), lesson_id):
            raise _broken(Path(error.path), error)
    ids = [lesson.id for lesson in course.lessons]
    close = [lesson.id for lesson in course.lessons if lesson.file_id == lesson_id]  # a pack's lesson
    close += difflib.get_close_matches(lesson_id, ids, n=1, cutoff=0.6)
    raise OpenError("open_no_lesson", id=lesson_id, hint=_did_you_mean(close), ids=", ".join(ids) or "-")


def _declares(path: Path, lesson_id: str) -> bool:
    """Whether a broken lesson file says `id = "<lesson_id>"` (its pack's name before a "/")."""
    from lessons.folders import MAX_LESSON_BYTES

    if not path.is_file():  # a FIFO would block
        return False
    try:
        with open(path, "rb") as file:  # a broken file may be huge: its head is enough
            found = _DECLARED_ID.search(file.read(MAX_LESSON_BYTES).decode("utf-8", errors="replace"))
    except OSError:
        return False
    if found is None:
        return False
    pack, _, own = lesson_id.rpartition("/")
    return found.group(1) == own and (not pack or path.parent.name == pack)


def _broken(path: Path, error) -> OpenError:
    """The lesson's problems, as `check` prints them (a duplicate id is the course's, not the file's)."""
    from lessons.loader import read_lesson

    _, problems = read_lesson(path)
    return OpenError("open_broken", status=1, problems=sorted(problems or [error], key=lambda p: p.line or 0),
                     path=path)


def _step(lesson, step: str) -> str:
    ids = [s.id for s in lesson.steps]
    if step in ids:
        return step
    if step.isdigit() and 1 <= int(step) <= len(ids):
        return ids[int(step) - 1]
    close = difflib.get_close_matches(step, ids, n=1, cutoff=0.6)
    listed = ", ".join(f"{i} {step_id}" for i, step_id in enumerate(ids, 1))
    raise OpenError("open_no_step", id=lesson.id, step=step, hint=_did_you_mean(close), steps=listed)


def _did_you_mean(close: list[str]):
    """The hint after "no lesson 'x'", in the message's language ("." in English without one)."""
    from tutor.i18n import t

    return lambda lang: t("open_did_you_mean", lang, close=close[0]) if close else ("." if lang == "en" else "")
