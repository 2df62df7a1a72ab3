"""Gathering the course: bundled lessons, the learner's folder, and folders given with `--lessons`.

`Course.sections()` groups the lessons as the course view shows them: the bundled course, then the
learner's own loose lessons, then each installed pack under its name.

A file that cannot be read is listed in `Course.broken` with its error, so
the app shows it instead of crashing; so is a lesson whose id another lesson
already uses (the one found first — bundled, then user, then extra — wins).

A pack's source folder given with `--lessons` shadows the installed copy of the same pack (an author
previewing their edits must see them, not the copy installed earlier): the installed copy's lessons
are left out, and `Course.shadowed` says so.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lessons.errors import LessonError
from lessons.folders import bundled_dir, is_bundled, lesson_files
from lessons.loader import load_lesson
from lessons.messages import say
from lessons.model import Lesson
from lessons.packs import Pack
from lessons.parse_cache import ParseCache


@dataclass(frozen=True)
class Section:
    """Lessons shown together: `kind` is "bundled", "own" (the learner's loose lessons, also those of
    `--lessons` folders) or "pack"; a pack's section names it (`pack` is None if its pack.toml broke
    since the lessons were loaded)."""

    kind: str
    lessons: tuple[Lesson, ...]
    pack_name: str | None = None
    pack: Pack | None = None


@dataclass(frozen=True)
class Shadow:
    """An installed pack left out because its source folder, with the same pack name, was given."""

    name: str
    installed: Path
    source: Path

    def __str__(self) -> str:
        return f"{self.source} is used instead of the installed pack '{self.name}' ({self.installed})"


@dataclass(frozen=True)
class Course:
    lessons: list[Lesson] = field(default_factory=list)  # sorted by (order, id)
    broken: list[LessonError] = field(default_factory=list)
    shadowed: tuple[Shadow, ...] = ()

    def lesson(self, lesson_id: str) -> Lesson:
        for lesson in self.lessons:
            if lesson.id == lesson_id:
                return lesson
        raise KeyError(lesson_id)

    def sections(self) -> list[Section]:
        """The bundled course, the learner's own lessons, then each pack by name (its lessons in the
        order its pack.toml lists them); empty sections are left out."""
        from lessons.packs import pack_of

        loose = {True: [], False: []}  # is_bundled resolves the path: once per lesson
        for lesson in self.lessons:
            if lesson.pack is None:
                loose[is_bundled(lesson.path)].append(lesson)
        found = [Section("bundled", tuple(loose[True])), Section("own", tuple(loose[False]))]
        for name in sorted({lesson.pack for lesson in self.lessons if lesson.pack is not None}):
            members = [lesson for lesson in self.lessons if lesson.pack == name]
            pack = pack_of(members[0].path.parent) if members[0].path is not None else None
            if pack is not None and pack.name == name:
                listed = {file: i for i, file in enumerate(pack.lessons)}
                members.sort(key=lambda lesson: listed.get(lesson.path.name, len(listed)))
            else:
                pack = None
            found.append(Section("pack", tuple(members), name, pack))
        return [section for section in found if section.lessons]


def load_course(extra_dirs: Iterable[str | os.PathLike[str]] = (), *, user_dir: str | os.PathLike[str] | None,
                include_bundled: bool = True, cache_path: str | os.PathLike[str] | None = None) -> Course:
    """Load every lesson. `user_dir` is the learner's own lesson folder, given by the caller (the app
    and the commands know the data folder; this package knows nothing of it); it may not exist yet,
    and None means there is none. With `cache_path`, parsed files are kept there between runs (and, in
    any case, for the rest of the process: `lessons.parse_cache`)."""
    folders: list[tuple[Path, bool]] = []  # (folder, must exist)
    if include_bundled:
        folders.append((bundled_dir(), True))
    if user_dir is not None:
        folders.append((Path(user_dir), False))
    folders.extend((Path(folder), True) for folder in extra_dirs)

    cache = ParseCache(Path(cache_path) if cache_path is not None else None)
    lessons: dict[str, Lesson] = {}
    broken: list[LessonError] = []
    seen: set[Path] = set()
    sources = source_packs(Path(folder) for folder in extra_dirs)
    shadowed: dict[str, Shadow] = {}
    for folder, must_exist in folders:
        if not folder.is_dir():
            if must_exist:
                broken.append(LessonError(folder, "", None, say("folder_not_found" if not folder.exists()
                                                               else "not_a_folder")))
            continue
        for path in lesson_files(folder):
            if path.resolve() in seen:
                continue
            seen.add(path.resolve())
            if user_dir is not None and folder == Path(user_dir):
                shadow = shadow_of(path.parent, sources)
                if shadow is not None:
                    shadowed.setdefault(shadow.name, shadow)
                    continue
            try:
                lesson = load_lesson(path, cache)
            except LessonError as error:
                broken.append(error)
                continue
            if lesson.id in lessons:
                broken.append(LessonError(path, "id", lesson.line_of("id"), say(
                    "duplicate_lesson_id", id=lesson.id, other=lessons[lesson.id].path)))
            else:
                lessons[lesson.id] = lesson
    cache.save()
    return Course(sorted(lessons.values(), key=lambda lesson: lesson.sort_key), broken, tuple(shadowed.values()))


def source_packs(folders: Iterable[Path]) -> dict[str, Path]:
    """Pack name -> (resolved) folder of each sound pack in or under `folders`: the sources that shadow an
    installed copy of the same pack."""
    from lessons.packs import pack_folders, pack_of

    found: dict[str, Path] = {}
    for folder in folders:
        for candidate in pack_folders(folder):
            pack = pack_of(candidate)
            if pack is not None:
                found.setdefault(pack.name, candidate.resolve())
    return found


def shadow_of(folder: Path, sources: dict[str, Path]) -> Shadow | None:
    """The shadow of the installed pack `folder` if a source folder of the same pack (`source_packs`) replaces
    it: the one rule by which the app, `check`, `new` and `serve` prefer an author's source to its installed copy."""
    if not sources:
        return None
    from lessons.packs import pack_of

    pack = pack_of(folder)
    if pack is None or pack.name not in sources or sources[pack.name] == folder.resolve():
        return None
    return Shadow(pack.name, folder, sources[pack.name])
