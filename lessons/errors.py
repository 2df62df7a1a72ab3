"""The one error type for a lesson file's problems.

Every problem — a TOML syntax error, a schema violation, a snippet the runner
refuses, an `expect` the engine disagrees with — is a `LessonError` naming the
file, the key path inside it and the line, so `check` can print it the way
compilers do (`path:line: key.path: message`) and an editor can jump there.
"""
from __future__ import annotations

import os

from lessons.text import LocalText


class LessonError(Exception):
    """A problem in a lesson file: where it is and what to do about it.

    `message` is a `LocalText` from `lessons.messages.say` (the problem in English and Japanese), or a plain
    English string with its Japanese in `ja`."""

    def __init__(self, path: str | os.PathLike[str] | None, key_path: str, line: int | None,
                 message: str | LocalText, ja: str | None = None):
        if isinstance(message, LocalText):
            message, ja = message.en, message.ja
        self.path = os.fspath(path) if path is not None else "<lesson>"
        self.key_path = key_path
        self.line = line
        self.message = message
        self.ja = ja  # the message in Japanese
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.key_path}: {self.message}" if self.key_path else f"{where}: {self.message}"

    def localized(self, lang: str) -> str:
        """`str(self)` with the message in `lang` ("en" or "ja"; English where it has no translation)."""
        if lang != "ja" or not self.ja:
            return str(self)
        return str(LessonError(self.path, self.key_path, self.line, self.ja))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LessonError) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    def __reduce__(self):
        return (LessonError, (self.path, self.key_path, self.line, self.message, self.ja))
