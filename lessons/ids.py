"""Lesson ids already taken: by the bundled course and the learner's lesson folder.

The tutor refuses a second lesson with an id it already has, so `check` reports such a collision
and `new` refuses a taken id, suggesting a free one.
"""
from __future__ import annotations

import os
from pathlib import Path


def taken_ids(user_dir: str | os.PathLike[str] | None, exclude: set[Path] = frozenset(),
              sources: dict[str, Path] | None = None) -> dict[str, tuple[Path, str]]:
    """id -> (file, where: "the bundled course" or "your lesson folder"), skipping files in `exclude`
    (resolved paths), files that do not load (their own problems are reported elsewhere) and installed
    packs that a source folder in `sources` shadows (`lessons.course.source_packs`)."""
    from lessons.course import shadow_of
    from lessons.folders import bundled_dir, lesson_files
    from lessons.loader import read_lesson

    found: dict[str, tuple[Path, str]] = {}
    folders = [(bundled_dir(), "the bundled course")]
    if user_dir is not None:
        folders.append((Path(user_dir), "your lesson folder"))
    for folder, where in folders:
        if not folder.is_dir():
            continue
        for path in lesson_files(folder):
            if path.resolve() in exclude or (where == "your lesson folder" and shadow_of(path.parent, sources or {})):
                continue
            lesson, _ = read_lesson(path)
            if lesson is not None:
                found.setdefault(lesson.id, (path, where))
    return found


def free_id(wanted: str, taken) -> str:
    """`wanted` with the first free suffix: chain-rule -> chain-rule-2."""
    number = 2
    while f"{wanted}-{number}" in taken:
        number += 1
    return f"{wanted}-{number}"
