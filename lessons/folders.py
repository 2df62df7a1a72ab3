"""Where the lessons are: the bundled folder, and which `*.toml` files under a folder are lessons.

Kept apart from the parser so that the app can find (and fingerprint) the course's files without
importing it: the course view is drawn from a cached outline, and the lessons load afterwards.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

PACK_FILE = "pack.toml"
MARKER_FILE = ".autograd-tutor-lessons"  # an empty file: "every *.toml here is a lesson"
INSTALLED_FILE = ".autograd-tutor-installed"  # written by `install` into a pack's folder: `--replace` may replace it
MAX_LESSON_BYTES = 1_000_000  # a bigger *.toml is refused unread (by the loader, the pack reader, the outline)
_FORMAT_VERSION_KEY = re.compile(rb"(?m)^\s*format_version\s*=")


def bundled_dir() -> Path:
    """The folder of the lessons shipped with the package (installed as plain files, next to this module;
    `importlib.resources` would cost the app's start-up a noticeable import for the same answer)."""
    return Path(__file__).parent / "bundled"


def is_bundled(path: str | os.PathLike[str] | None) -> bool:
    """Whether a lesson file or folder is part of the bundled course (what runs where snippets cannot
    be sandboxed)."""
    return path is not None and Path(path).resolve().is_relative_to(bundled_dir().resolve())


def is_marked(folder: Path) -> bool:
    """A folder whose every *.toml is a lesson: a pack, or one with the marker file."""
    return (folder / PACK_FILE).is_file() or (folder / MARKER_FILE).exists()


def looks_like_lesson(path: Path) -> bool:
    """Whether a *.toml file is a lesson: it sets `format_version`, or its folder is marked.
    `pack.toml` never is; a `pyproject.toml` (no format_version) is not."""
    if path.name == PACK_FILE:
        return False
    if is_marked(path.parent):
        return True
    try:
        with open(path, "rb") as file:
            head = file.read(65_536)
    except OSError:
        return True  # let the loader say what is wrong with it
    return _FORMAT_VERSION_KEY.search(head) is not None


def lesson_files(folder: Path) -> list[Path]:
    """The lesson `*.toml` files under `folder`, recursively, in a stable order (hidden folders skipped).
    A lesson sets `format_version` or sits in a marked folder (a pack); a `pyproject.toml` is not one."""
    return sorted(path for path in folder.rglob("*.toml")
                  if path.is_file() and not any(part.startswith(".") for part in path.relative_to(folder).parts)
                  and looks_like_lesson(path))
