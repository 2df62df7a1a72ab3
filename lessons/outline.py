"""The course as its view lists it, saved so that the first screen needs no lesson file parsed.

Loading the course (parsing and checking every lesson) was most of the tutor's start-up, yet the
course view shows only each lesson's title, summary, concepts and number of steps, the sections and
the broken files: the course's *outline*. A quiz opened at start-up needs of the lessons only their quiz
templates (with each lesson's credit line and tolerance): those are saved beside the outline, in a file of their
own that only a quiz reads (`quiz_part`, `read_quiz`). The app saves the outline of each course it loads, under
a fingerprint of everything that load read: the lesson folders' files and this package's code and data
(glossary, format rules). At the next start a matching fingerprint draws the
course view from the outline at once, and the lessons load while the learner reads it; any change
gives another fingerprint, so a stale outline is never shown. The file is JSON, never pickle (a data
folder may be shared in a classroom); anything unreadable counts as no outline.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from stat import S_ISREG
from typing import NamedTuple

from lessons.atomic_file import write_atomically
from lessons.errors import LessonError
from lessons.folders import MARKER_FILE, MAX_LESSON_BYTES
from lessons.text import LocalText

VERSION = 2  # 2: quiz templates saved beside the outline (quiz.json): a new key, so an old cache is saved again with it


# The records are NamedTuples, not frozen dataclasses: a dataclass compiles its methods from source as its module
# is imported (about 0.5 ms each), and this module is on the way to the first screen.


class StepRef(NamedTuple):
    """A step as progress counts it (`gradable_step_ids` reads `id` and `kind`)."""

    id: str
    kind: str


class LessonEntry(NamedTuple):
    """One lesson's line in the course view."""

    id: str
    path: Path | None
    title: LocalText
    summary: LocalText
    concepts: tuple[str, ...]
    concept_names: tuple[str, ...]  # each concept's Japanese name in the glossary (the tag when it has none)
    steps: tuple[StepRef, ...]


class OutlineSection(NamedTuple):
    """A group of the course view (`lessons.course.Section`): a pack's names its pack, whose title and
    version are None when its pack.toml is broken."""

    kind: str
    lessons: tuple[LessonEntry, ...]
    pack_name: str | None = None
    pack_version: str | None = None
    pack_title: LocalText | None = None


class Outline(NamedTuple):
    sections: tuple[OutlineSection, ...]
    broken: tuple[LessonError, ...]


class QuizLesson(NamedTuple):
    """What a quiz needs of a lesson (`tutor.quiz.lesson_templates`, `tutor.quiz.generator`), without loading it."""

    id: str
    path: Path | None
    title: LocalText
    summary: LocalText
    source: LocalText | None
    tolerance: object  # lessons.model.Tolerance
    quiz: tuple  # lessons.model.QuizTemplate, ...


def outline_of(course) -> Outline:
    """The outline of a loaded `lessons.course.Course`."""
    from lessons.glossary import concept_name

    def entry(lesson) -> LessonEntry:
        return LessonEntry(lesson.id, lesson.path, lesson.title, lesson.summary, lesson.concepts,
                           tuple(concept_name(concept, "ja") for concept in lesson.concepts),
                           tuple(StepRef(step.id, str(step.kind)) for step in lesson.steps))

    sections = tuple(OutlineSection(section.kind, tuple(entry(lesson) for lesson in section.lessons), section.pack_name,
                                    section.pack.version if section.pack else None,
                                    section.pack.title if section.pack else None)
                     for section in course.sections())
    return Outline(sections, tuple(course.broken))


def fingerprint(folders: Iterable[Path]) -> str:
    """A hash of all a course load reads: each folder's state and its `*.toml` and marker files (names
    and contents), and this package's modules and data files (a new version may read lessons differently).
    Reading the files costs about a millisecond for the bundled course."""
    digest = hashlib.blake2b(digest_size=16)

    def add(*parts: object) -> None:
        digest.update(repr(parts).encode("utf-8", "surrogateescape"))

    add(VERSION)
    package = Path(__file__).parent
    for entry in sorted(os.scandir(package), key=lambda entry: entry.name):
        if entry.name.endswith((".py", ".toml", ".json")) and entry.is_file():
            stat = entry.stat()
            add(entry.name, stat.st_size, stat.st_mtime_ns)
    for folder in folders:
        add(os.fspath(folder), folder.is_dir(), folder.exists())
        if not folder.is_dir():
            continue
        for path in sorted(path for path in folder.rglob("*") if path.name.endswith(".toml") or path.name == MARKER_FILE):
            add(path.relative_to(folder).as_posix(), _file_state(path))
    return digest.hexdigest()


def _file_state(path: Path) -> object:
    """A file's contents (its hash), without ever blocking on a FIFO or reading a huge file whole: those,
    like directories, the loader refuses by their kind and size, so their kind and size are the state. A file is
    read at the size its stat gave, not into a buffer the size of the largest allowed (1 MB allocated per lesson
    at every start); one that grows meanwhile gives the next start another key."""
    try:
        stat = os.stat(path)
        if not S_ISREG(stat.st_mode) or stat.st_size > MAX_LESSON_BYTES:
            return stat.st_mode, stat.st_size, stat.st_mtime_ns
        with open(path, "rb") as file:
            return hashlib.blake2b(file.read(stat.st_size), digest_size=16).digest()
    except OSError as error:
        return type(error).__name__


def read_outline(path: Path, key: str) -> Outline | None:
    """The outline saved in `path` under fingerprint `key`, or None (none, another key, unreadable)."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        if stored.get("version") != VERSION or stored.get("key") != key:
            return None
        return _decode(stored["outline"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None


def write_outline(path: Path, key: str, outline: Outline) -> None:
    """Save `outline` under `key`, atomically; failing to write only costs the next start-up its speed."""
    _write(path, {"version": VERSION, "key": key, "outline": _encode(outline)})


def _write(path: Path, stored: dict) -> None:
    try:
        write_atomically(path, json.dumps(stored))
    except OSError:
        pass


def _text(text: LocalText | None) -> list | None:
    return None if text is None else [text.en, text.ja]


def _local(value, *, optional: bool = False) -> LocalText | None:
    if value is None and optional:
        return None
    if not isinstance(value, list):
        raise TypeError("a text is [en, ja]")
    en, ja = value
    if not isinstance(en, str) or not isinstance(ja, (str, type(None))):
        raise TypeError("a text is [en, ja]")
    return LocalText(en, ja)


def _string(value) -> str:
    if not isinstance(value, str):
        raise TypeError("expected a string")
    return value


def _strings(values) -> tuple[str, ...]:
    return tuple(_string(value) for value in values)


def _encode(outline: Outline) -> dict:
    return {
        "sections": [{"kind": section.kind, "pack_name": section.pack_name, "pack_version": section.pack_version,
                      "pack_title": _text(section.pack_title),
                      "lessons": [{"id": entry.id, "path": None if entry.path is None else os.fspath(entry.path),
                                   "title": _text(entry.title), "summary": _text(entry.summary),
                                   "concepts": list(entry.concepts), "concept_names": list(entry.concept_names),
                                   "steps": [list(step) for step in entry.steps]}
                                  for entry in section.lessons]}
                     for section in outline.sections],
        "broken": [[error.path, error.key_path, error.line, error.message, error.ja] for error in outline.broken],
    }


def _decode(data: dict) -> Outline:
    sections = []
    for section in data["sections"]:
        entries = tuple(LessonEntry(_string(entry["id"]), None if entry["path"] is None else Path(entry["path"]),
                                    _local(entry["title"]), _local(entry["summary"]), _strings(entry["concepts"]),
                                    _strings(entry["concept_names"]),
                                    tuple(StepRef(*_strings(step)) for step in entry["steps"]))
                        for entry in section["lessons"])
        sections.append(OutlineSection(_string(section["kind"]), entries, section["pack_name"], section["pack_version"],
                                       _local(section["pack_title"], optional=True)))
    broken = tuple(LessonError(*entry) for entry in data["broken"])  # [path, key path, line, message, its Japanese]
    return Outline(tuple(sections), broken)


# ---------------------------------------------------------------------- the quiz part

_PARAMS = {"tensor": "TensorParam", "int": "IntParam", "float": "FloatParam", "choice": "ChoiceParam"}


def quiz_part(course) -> list[dict]:
    """The quiz templates of a loaded course's lessons, in the course's order (the order a seeded quiz draws
    from), as JSON data (`read_quiz` reads them back)."""
    from dataclasses import asdict

    def template(quiz) -> dict:
        params = [{"kind": next(kind for kind, name in _PARAMS.items() if type(param).__name__ == name), **asdict(param)}
                  for param in quiz.params]
        return {"id": quiz.id, "concepts": list(quiz.concepts), "text": _text(quiz.text), "snippet": quiz.snippet,
                "expression": quiz.expression, "params": params,
                "tolerance": None if quiz.tolerance is None else [quiz.tolerance.rtol, quiz.tolerance.atol],
                "hints": [_text(hint) for hint in quiz.hints], "explanation": _text(quiz.explanation),
                "line": quiz.line, "snippet_line": quiz.snippet_line, "nonfinite": quiz.nonfinite}

    part = [{"id": lesson.id, "path": None if lesson.path is None else os.fspath(lesson.path),
             "title": _text(lesson.title), "summary": _text(lesson.summary), "source": _text(lesson.source),
             "tolerance": [lesson.tolerance.rtol, lesson.tolerance.atol], "quiz": [template(quiz) for quiz in lesson.quiz]}
            for lesson in course.lessons if lesson.quiz]
    return json.loads(json.dumps(part))  # as the file holds it (lists, not tuples): a saved part equals a new one


def write_quiz(path: Path, key: str, part: list[dict]) -> None:
    """Save a course's `quiz_part` under `key` (the outline's), atomically; failing costs a quiz its speed."""
    _write(path, {"version": VERSION, "key": key, "lessons": part})


def read_quiz(path: Path, key: str) -> tuple[QuizLesson, ...] | None:
    """The quiz part saved in `path` under fingerprint `key`, decoded, or None (none, another key, unreadable):
    the caller then loads the lessons."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        if stored.get("version") != VERSION or stored.get("key") != key:
            return None
        return tuple(_quiz_lesson(data) for data in stored["lessons"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None


def _number(value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("expected a number")
    return value


def _integer(value, *, optional: bool = False) -> int | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("expected an integer")
    return value


def _flag(value) -> bool:
    if not isinstance(value, bool):
        raise TypeError("expected true or false")
    return value


def _quiz_lesson(data: dict) -> QuizLesson:
    from lessons import model

    def tolerance(value, *, optional: bool = False):
        if value is None and optional:
            return None
        rtol, atol = value
        return model.Tolerance(_number(rtol), _number(atol))

    def param(data: dict):
        name, kind = _string(data["name"]), data["kind"]
        if kind == "tensor":
            return model.TensorParam(name, tuple(tuple(_integer(n) for n in shape) for shape in data["shapes"]),
                                     _number(data["low"]), _number(data["high"]), _flag(data["integers"]),
                                     _integer(data["decimals"]))
        if kind == "int":
            return model.IntParam(name, _integer(data["low"]), _integer(data["high"]))
        if kind == "float":
            return model.FloatParam(name, _number(data["low"]), _number(data["high"]), _integer(data["decimals"]))
        if kind == "choice":
            values = tuple(data["values"])
            if not all(isinstance(value, (str, int, float)) for value in values):
                raise TypeError("a choice is a string or a number")
            return model.ChoiceParam(name, values)
        raise ValueError(f"no parameter kind {kind!r}")

    def template(data: dict):
        return model.QuizTemplate(
            id=_string(data["id"]), concepts=_strings(data["concepts"]), text=_local(data["text"]),
            snippet=_string(data["snippet"]), expression=_string(data["expression"]),
            params=tuple(param(item) for item in data["params"]), tolerance=tolerance(data["tolerance"], optional=True),
            hints=tuple(_local(hint) for hint in data["hints"]), explanation=_local(data["explanation"], optional=True),
            line=_integer(data["line"], optional=True), snippet_line=_integer(data["snippet_line"], optional=True),
            nonfinite=_flag(data["nonfinite"]))

    return QuizLesson(_string(data["id"]), None if data["path"] is None else Path(_string(data["path"])),
                      _local(data["title"]), _local(data["summary"]), _local(data["source"], optional=True),
                      tolerance(data["tolerance"]), tuple(template(item) for item in data["quiz"]))
