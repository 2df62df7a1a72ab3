"""`autograd-tutor check PATH...`: validate lesson files the way a compiler reports errors.

One line per problem, `path:line: key.path: message`, then a summary that also counts the
pedagogy warnings (`lessons.lint`); `--strict` lists the warnings and fails on them. Exit status 0
when every lesson is valid, 1 when there are problems, 2 for a usage error (a path that does not
exist, `--against-torch` without PyTorch). `--watch` checks again whenever a file changes.
"""
from __future__ import annotations

import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import click

from tutor.commands import top_level
from tutor.commands.trust import require_confinement, trust_option
from tutor.i18n import t
from tutor.untrusted import echo

WATCH_INTERVAL = 0.5  # seconds between two looks at the files' modification times
MAX_WATCHED = 2000  # files; a bigger tree is watched in part, and the command says so
_sleep = time.sleep  # tests replace it


@dataclass
class Report:
    problems: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    checked: int = 0
    notes: list = field(default_factory=list)  # what the author should know, neither a problem nor a warning
                                                # (text, or a lessons.course.Shadow, worded when printed)
    torch: str | None = None   # the PyTorch version `--against-torch` compared with


@click.command("check")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--against-torch", is_flag=True,
              help="Also run every program with real PyTorch and report any answer that differs.")
@click.option("--strict", is_flag=True,
              help="Also list the pedagogy warnings (missing hints, Japanese, quiz…) and fail on them.")
@click.option("--require-lang", "require_lang", type=click.Choice(["ja"]), multiple=True,
              help="Every text must have this language (a missing one is a problem, not a warning).")
@click.option("--misconceptions", "tell_apart", is_flag=True,
              help="Also say, per predict step, which misconceptions a wrong answer to it can name (runs each "
                   "program once per buggy rule; see docs/authoring.md).")
@click.option("--watch", is_flag=True, help="Check again whenever a file changes (Ctrl-C stops).")
@click.option("--watch-rounds", type=int, default=None, hidden=True)  # tests: stop after N re-checks
@trust_option
@click.pass_context
def command(ctx: click.Context, paths: tuple[Path, ...], against_torch: bool, strict: bool,
            require_lang: tuple[str, ...], tell_apart: bool, watch: bool, watch_rounds: int | None,
            trust_lessons: bool) -> None:
    """Validate lesson files, or folders of them (searched recursively for lesson *.toml files)."""
    from lessons.against_torch import torch_available

    lang = top_level.language(ctx)
    require_confinement("check", trust_lessons, paths, lang=lang)
    if against_torch and not torch_available():
        echo(t("check_needs_torch", lang), err=True)
        sys.exit(2)
    from tutor.paths import lessons_dir

    user_dir = lessons_dir(top_level.given(ctx, "data_dir"))

    def once() -> int:
        with warnings.catch_warnings():  # engine warnings (PyTorch's own, like non-leaf .grad) are not problems
            warnings.simplefilter("ignore")
            report = check_paths(paths, against_torch=against_torch, require_lang=require_lang, user_dir=user_dir,
                                 tell_apart=tell_apart, lang=lang)
        return print_report(report, strict, lang)

    status = once()
    if watch:
        status = _watch(paths, once, status, watch_rounds)
    sys.exit(status)


def print_report(report: Report, strict: bool, lang: str = "en") -> int:
    """Print the problems (and, when strict, the warnings) and the summary; the exit status. A problem
    with a Japanese message (`LessonError.ja`) is printed in Japanese when `lang` is "ja"."""
    from lessons.course import Shadow

    for note in report.notes:
        if isinstance(note, Shadow):
            note = t("pack_shadowed", lang, source=note.source, name=note.name, installed=note.installed)
        echo(t("check_note", lang, note=note))
    shown = report.problems + (report.warnings if strict else [])
    for problem in sorted(shown, key=lambda p: (p.path, p.line or 0)):
        echo(problem.localized(lang))
    parts = [t("check_lessons", lang, count=report.checked), t("check_problems", lang, count=len(report.problems))]
    if report.warnings:
        parts.append(t("check_warnings", lang, count=len(report.warnings))
                     + ("" if strict else t("check_warnings_hidden", lang)))
    if report.torch:
        echo(t("check_torch", lang, version=report.torch))
    echo(t("list_joiner", lang).join(parts))
    return 1 if report.problems or (strict and report.warnings) else 0


def check_paths(paths: tuple[Path, ...], *, against_torch: bool = False, require_lang: tuple[str, ...] = (),
                user_dir: Path | None = None, tell_apart: bool = False, lang: str = "en") -> Report:
    """All problems and warnings in the lesson files under `paths`, and how many files were checked."""
    from lessons.course import shadow_of
    from lessons.errors import LessonError
    from lessons.folders import PACK_FILE, lesson_files
    from lessons.ids import free_id, taken_ids
    from lessons.messages import say, term
    from lessons.packs import pack_folders as packs_under
    from lessons.packs import read_pack

    report = Report()
    files: list[Path] = []
    pack_folders: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = lesson_files(path)
            if not found:
                report.problems.append(LessonError(path, "", None, say("no_lesson_files")))
            files.extend(found)
            report.warnings.extend(_skipped(path, set(found)))
            pack_folders.extend(packs_under(path))
        elif path.name == PACK_FILE:
            pack_folders.append(path.parent)
            pack, _ = read_pack(path.parent)
            files.extend(pack.lesson_paths() if pack is not None else [])
        else:
            files.append(path)
    files = list(dict.fromkeys(files))
    pack_folders.extend(f.parent for f in files if (f.parent / PACK_FILE).is_file())
    packs = {}
    for folder in dict.fromkeys(pack_folders):
        pack, found = read_pack(folder)
        report.problems.extend(found)
        packs[folder.resolve()] = pack
    sources = {pack.name: folder for folder, pack in packs.items() if pack is not None}
    if user_dir is not None:  # the installed copy of a pack checked from its source is not a collision
        shadows = (shadow_of(folder, sources) for folder in packs_under(Path(user_dir)))
        report.notes.extend(shadow for shadow in shadows if shadow is not None)
    taken = taken_ids(user_dir, exclude={f.resolve() for f in files}, sources=sources)
    first_with_id: dict[str, Path] = {}
    sound = []  # lessons without problems, for --against-torch
    for path in files:
        pack = packs.get(path.parent.resolve())
        langs = tuple(dict.fromkeys(require_lang + tuple(lang for lang in (pack.languages if pack else ())
                                                          if lang != "en")))
        try:
            lesson, found, warned = _check_file(path, langs, pack.glossary if pack else frozenset())
        except Exception as error:  # a checker bug must still not end in a traceback for the author
            found = [LessonError(path, "", None, say("internal_error", error=f"{type(error).__name__}: {error}"))]
            lesson, warned = None, []
        report.problems.extend(found)
        report.warnings.extend(warned)
        if lesson is not None and not found:
            sound.append(lesson)
        if lesson is None:
            continue
        if lesson.id in first_with_id:
            report.problems.append(LessonError(path, "id", lesson.line_of("id"), say(
                "duplicate_lesson_id_here", id=lesson.id, other=first_with_id[lesson.id])))
        elif lesson.id in taken:
            other, where = taken[lesson.id]
            suggestion = free_id(lesson.file_id, set(taken) | set(first_with_id))
            report.problems.append(LessonError(path, "id", lesson.line_of("id"), say(
                "lesson_id_taken", id=lesson.id, other=other, suggestion=suggestion,
                where=term("bundled_course") if where == "the bundled course" else term("your_folder"))))
        first_with_id.setdefault(lesson.id, path)
    if tell_apart:
        report.notes.extend(_telling(lesson, lang) for lesson in sound)
    if against_torch:
        from lessons.against_torch import compare_with_torch

        comparison = compare_with_torch(sound)
        report.problems.extend(comparison.problems)
        report.torch = comparison.version
    report.checked = len(files)
    return report


def _telling(lesson, lang: str = "en") -> str:
    """Per predict step, the misconceptions a wrong answer can name (two or more wanted), and why not more."""
    from lessons.misconceptions import telling_report

    lines = [t("telling_title", lang, path=lesson.path)]
    for item in telling_report(lesson):
        where = f"  {lesson.path}:{lesson.line_of(f'steps[{item.index}]') or 0}: {item.step_id}: "
        told = ", ".join(item.told) or t("telling_none", lang)
        lines.append(where + told + ("" if item.enough else t("telling_fewer", lang, why=_why_not(item, lang))))
    return "\n".join(lines)


def _why_not(item, lang: str) -> str:
    """Why a step tells fewer than two misconceptions apart, in the author's language."""
    if item.answer_kind:
        return t("telling_kind", lang, kind=item.answer_kind)
    if item.no_worker:
        return t("telling_no_worker", lang)
    parts = []
    if len(item.same_as_correct) > 3:
        parts.append(t("telling_same_as_correct_many", lang, count=len(item.same_as_correct)))
    elif item.same_as_correct:
        parts.append(t("telling_same_as_correct", lang, names=", ".join(item.same_as_correct)))
    if item.coinciding:
        parts.append(t("telling_coinciding", lang, names=", ".join(item.coinciding)))
    return t("telling_separator", lang).join(parts) or t("telling_nothing_applies", lang)


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def _skipped(folder: Path, lessons: set[Path]) -> list:
    """Warnings for *.toml files that look like lessons but are not read as one (no format_version)."""
    from lessons.errors import LessonError
    from lessons.folders import PACK_FILE
    from lessons.messages import say

    found = []
    for path in sorted(folder.rglob("*.toml")):
        if path in lessons or path.name == PACK_FILE or _hidden(path, folder) or not path.is_file():
            continue
        try:
            with open(path, "rb") as file:
                head = file.read(65_536)
        except OSError:
            continue
        if b"[[steps]]" in head:
            found.append(LessonError(path, "", 1, say("not_read_as_lesson")))
    return found


def _check_file(path: Path, require_lang: tuple[str, ...], glossary: frozenset[str]):
    from lessons.lint import lint_lesson
    from lessons.loader import read_lesson
    from lessons.validate import validate_lesson

    lesson, problems = read_lesson(path)
    if lesson is None:
        return None, problems, []
    warned: list = []
    problems = validate_lesson(lesson, warnings=warned)
    lint_problems, lint_warnings = lint_lesson(lesson, require_lang=require_lang, glossary=glossary)
    return lesson, problems + lint_problems, warned + lint_warnings


def _watched(paths: tuple[Path, ...]) -> tuple[dict[Path, tuple[int, int]], bool]:
    """(file -> (mtime_ns, size) for the lesson-like files under `paths`, whether the list was cut short)."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            for found in path.rglob("*.toml"):
                if not _hidden(found, path):
                    files.append(found)
                if len(files) > MAX_WATCHED:
                    break
        else:
            files.append(path)
    state = {}
    for file in files[:MAX_WATCHED]:
        try:
            info = file.stat()
            state[file] = (info.st_mtime_ns, info.st_size)
        except OSError:
            pass
    return state, len(files) > MAX_WATCHED


def _watch(paths: tuple[Path, ...], once, status: int, rounds: int | None) -> int:
    state, cut = _watched(paths)
    echo(f"watching {len(state)} files for changes" + (f" (only the first {MAX_WATCHED})" if cut else "")
               + "; Ctrl-C stops")
    done = 0
    try:
        while rounds is None or done < rounds:
            _sleep(WATCH_INTERVAL)
            now, _ = _watched(paths)
            if now == state:
                continue
            changed = sorted(str(p) for p in now.keys() | state.keys() if now.get(p) != state.get(p))
            state = now
            echo(f"\n--- {time.strftime('%H:%M:%S')} changed: {', '.join(changed[:3])}"
                       + (f" and {len(changed) - 3} more" if len(changed) > 3 else ""))
            status = once()
            done += 1
    except KeyboardInterrupt:
        echo("\nstopped watching")
    return status
