"""Students' names: what counts as the same student, and the folder a name is kept in.

Two names are the same student when they are equal after Unicode NFKC normalisation, case folding
and collapsing white space: "Alice", "alice " and "Ａｌｉｃｅ" (full-width) are one student, so they
never become two files that a case-insensitive file system (macOS, Windows) would merge anyway.
Different students never share a folder: the folder name is an escaping of the key that keeps
letters and digits (any script) and writes everything else as `~` and six hex digits, so no
folder name contains a separator, a dot or anything a file system treats specially.
"""
from __future__ import annotations

import re
import unicodedata

MAX_LENGTH = 32  # characters of the normalised name; the folder name stays under 255 bytes
_REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}  # controls, invisible formatting, unassigned
_WINDOWS_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}


class InvalidName(ValueError):
    """The name cannot be used; `reason` is an i18n key (`name_empty`, `name_too_long`, `name_bad_character`)."""

    def __init__(self, reason: str, **params: object) -> None:
        super().__init__(reason)
        self.reason = reason
        self.params = params


def display_name(name: str) -> str:
    """The name as shown: NFKC, white space collapsed; raises `InvalidName`."""
    text = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", name)).strip()
    if not text:
        raise InvalidName("name_empty")
    if len(text) > MAX_LENGTH:
        raise InvalidName("name_too_long", limit=MAX_LENGTH)
    for char in text:
        if unicodedata.category(char) in _REFUSED_CATEGORIES:
            raise InvalidName("name_bad_character", code=f"U+{ord(char):04X}")
    return text


def student_key(name: str) -> str:
    """What identifies a student: the display name, case-folded and normalised again (stable)."""
    return unicodedata.normalize("NFKC", display_name(name).casefold())


def folder_name(name: str) -> str:
    """The folder of the student called `name` (one-to-one with `student_key`)."""
    key = student_key(name)
    parts = []
    for char in key:
        if char == " ":
            parts.append("_")
        elif char.isalnum() and char.isprintable() and char.isascii() or (char.isalpha() and not char.isascii()):
            parts.append(char)
        else:
            parts.append(f"~{ord(char):06x}")
    folder = "".join(parts)
    if folder.split("_")[0] in _WINDOWS_RESERVED or folder in _WINDOWS_RESERVED:
        folder = f"~{ord(folder[0]):06x}{folder[1:]}"
    return folder
