"""Writing a small file whole or not at all: the tutor's caches, settings, class records and exports.

A reader (a second tutor, a student's process, a crash's next start) must never see half a file: the
text goes to a temporary file beside the target, named for this process, which then replaces it.
"""
from __future__ import annotations

import os
from pathlib import Path


def write_atomically(path: Path, text: str) -> None:
    """Write `text` (UTF-8) to `path`, creating its folder; a failure (OSError, or text UTF-8 cannot hold)
    is raised, with the old file untouched and no temporary file left."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
