"""Reading a snippet file for `run` and `explain`: never more than the limit, and a usage error (exit
status 2) naming the file for anything that is not readable UTF-8 text."""
from __future__ import annotations

import sys
from pathlib import Path

from tutor.untrusted import echo


def usage(command: str, message: str) -> None:
    echo(f"autograd-tutor {command}: {message}", err=True)
    sys.exit(2)


def read_snippet(file: Path, max_chars: int, command: str, lang: str = "en") -> str | None:
    """The file's text, or None when it is longer than `max_chars` (each command says what that means); a
    problem is said in `lang`."""
    from tutor.i18n import t

    try:
        with file.open("rb") as handle:
            data = handle.read(4 * max_chars + 4)  # UTF-8 needs at most 4 bytes a character
            oversized = bool(handle.read(1))
    except FileNotFoundError:
        usage(command, t("cli_no_such_file", lang, file=file))
    except OSError as exc:
        usage(command, t("cli_unreadable", lang, file=file, reason=exc.strerror or exc))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if oversized:  # the cut may split a character: the size is the problem to report
            return None
        line = data[: exc.start].count(b"\n") + 1
        usage(command, t("cli_not_utf8", lang, file=file, line=line, byte=exc.start))
    return None if oversized or len(text) > max_chars else text
