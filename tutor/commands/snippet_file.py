"""Reading a snippet file for `run` and `explain`: never more than the limit, and a usage error (exit
status 2) naming the file for anything that is not readable UTF-8 text."""
from __future__ import annotations

import sys
from pathlib import Path

from tutor.untrusted import echo


def usage(command: str, message: str) -> None:
    echo(f"autograd-tutor {command}: {message}", err=True)
    sys.exit(2)


def read_snippet(file: Path, max_chars: int, command: str) -> str | None:
    """The file's text, or None when it is longer than `max_chars` (each command says what that means)."""
    try:
        with file.open("rb") as handle:
            data = handle.read(4 * max_chars + 4)  # UTF-8 needs at most 4 bytes a character
            oversized = bool(handle.read(1))
    except FileNotFoundError:
        usage(command, f"{file}: no such file")
    except OSError as exc:
        usage(command, f"{file}: cannot be read ({exc.strerror or exc})")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if oversized:  # the cut may split a character: the size is the problem to report
            return None
        line = data[: exc.start].count(b"\n") + 1
        usage(command, f"{file}:{line}: not UTF-8 text (byte {exc.start}); save the snippet as UTF-8")
    return None if oversized or len(text) > max_chars else text
