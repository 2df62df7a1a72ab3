"""What a class is served: the lesson folders every student's tutor loads, decided once by `serve`.

Students' tutors each have their own data folder in the class folder, so they cannot see the teacher's
installed packs; the server therefore resolves the teacher's choice into plain folders, loads them once
to tell the teacher what students will get (and every file that will not load), and hands the same
folders to every tutor and to `class.json`, which the report and the Class screen read back:

- by default: the bundled course, every pack installed in the teacher's data folder, and `--lessons`
  folders;
- with `--only PACK_OR_DIR` (repeatable): just those (an installed pack's name, or a folder), and the
  `--lessons` folders; no bundled course.

A pack in a folder given on the command line shadows the installed pack of the same name (the author's
source folder wins over their installed copy; `lessons.course.shadow_of`, as for the app and `check`),
and the offer says so.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lessons.course import Course, load_course, shadow_of, source_packs
from lessons.errors import LessonError
from lessons.folders import PACK_FILE
from lessons.packs import pack_of


class OfferError(ValueError):
    """`--only` names neither a folder nor an installed pack (the message lists the installed ones)."""


@dataclass(frozen=True)
class Source:
    folder: Path  # resolved
    pack: str | None  # the pack's name when the folder is one
    installed: bool  # from the teacher's data folder (else given on the command line)
    lessons: int = 0


@dataclass(frozen=True)
class Offer:
    sources: tuple[Source, ...]
    bundled: bool
    course: Course
    shadowed: tuple[Path, ...] = field(default=())  # installed packs a command-line folder replaced

    @property
    def folders(self) -> list[str]:
        return [str(source.folder) for source in self.sources]

    @property
    def broken(self) -> list[LessonError]:
        return self.course.broken

    def bundled_lessons(self) -> int:
        served = {source.folder for source in self.sources}
        return sum(1 for lesson in self.course.lessons
                   if lesson.path is None or not any(_within(lesson.path, folder) for folder in served))

    def settings(self) -> dict:
        """What `class.json` records: the report and the Class screen load exactly this course."""
        return {"lessons": self.folders, "bundled": self.bundled,
                "sources": [{"folder": str(s.folder), "pack": s.pack, "installed": s.installed, "lessons": s.lessons}
                            for s in self.sources]}

    def environment(self) -> dict[str, str]:
        """What a student's tutor is told (see `student_app`)."""
        return {"AUTOGRAD_TUTOR_CLASS_LESSONS": os.pathsep.join(self.folders),
                "AUTOGRAD_TUTOR_CLASS_BUNDLED": "1" if self.bundled else "0"}


def installed_packs(user_dir: Path | None) -> dict[str, Path]:
    """The packs installed in a data folder's lesson folder, by name (hidden staging folders skipped)."""
    found: dict[str, Path] = {}
    if user_dir is None or not user_dir.is_dir():
        return found
    for folder in sorted(user_dir.iterdir()):
        if folder.name.startswith(".") or not (folder / PACK_FILE).is_file():
            continue
        pack = pack_of(folder)
        found[pack.name if pack is not None else folder.name] = folder.resolve()
    return found


def make_offer(user_dir: Path | None, lesson_dirs: Iterable[str | os.PathLike[str]] = (),
               only: Iterable[str] = ()) -> Offer:
    """Resolve the teacher's choice (raises `OfferError` for an `--only` that names nothing) and load it."""
    installed = installed_packs(user_dir)
    only = list(only)
    given: list[Path] = []
    chosen_packs: dict[str, Path] = {} if only else dict(installed)
    for item in only:
        if Path(item).expanduser().is_dir():
            given.append(Path(item).expanduser().resolve())
        elif item in installed:
            chosen_packs[item] = installed[item]
        else:
            names = ", ".join(installed) or "none"
            raise OfferError(f"{item!r} is neither a folder nor an installed pack (installed packs: {names})")
    given.extend(Path(folder).expanduser().resolve() for folder in lesson_dirs)
    by_pack = source_packs(given)  # the one rule of the loader, `check` and `new`
    shadowed = [chosen_packs.pop(name) for name, folder in list(chosen_packs.items()) if shadow_of(folder, by_pack)]
    sources = [Source(folder, name, True) for name, folder in chosen_packs.items()]
    sources += [Source(folder, _pack_name(folder), False) for folder in dict.fromkeys(given)]
    course = load_course([source.folder for source in sources], user_dir=None, include_bundled=not only)
    counted = tuple(Source(s.folder, s.pack, s.installed, sum(1 for lesson in course.lessons if lesson.path is not None
                                                             and _within(lesson.path, s.folder)))
                    for s in sources)
    return Offer(counted, not only, course, tuple(shadowed))


def _pack_name(folder: Path) -> str | None:
    pack = pack_of(folder)
    return pack.name if pack is not None else None


def _within(path: Path, folder: Path) -> bool:
    return Path(path).resolve().is_relative_to(folder)
