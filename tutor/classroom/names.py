"""Students' names: what counts as the same student, and the folder a name is kept in.

A name is shown as typed after Unicode NFKC and collapsing white space. It is refused when it holds a
character nobody can see or tell apart from nothing: controls, invisible formatting (ZWJ, bidi
overrides), every default-ignorable code point (U+034F, U+115F, U+3164, U+FFA0…) and blanks that are
letters or symbols to Unicode (U+2800 BRAILLE PATTERN BLANK).

Two names are the same student when their *skeletons* are equal: NFKC, case folding, then every
character replaced by the representative of its class of look-alikes (Unicode's confusables, UTS #39,
from the `confusable-homoglyphs` data): "Alice", "alice ", "ＡＬＩＣＥ" (full-width) and "Аlice"
(Cyrillic А) are one student. So a classmate cannot join as someone else by a look-alike spelling, and
two students never become two files that a case-insensitive file system would merge.

The folder keeps the first spelling readable: it is an escaping of the case-folded name (`student_key`)
that keeps letters and digits (any script) and writes everything else as `~` and six hex digits, so no
folder name contains a separator, a dot or anything a file system treats specially. Which folder a
later look-alike spelling belongs to is found by its skeleton (`folder.ClassFolder.student`).
"""
from __future__ import annotations

import functools
import re
import unicodedata

MAX_LENGTH = 32  # characters of the normalised name (the join page's field takes as many); folder < 255 bytes
_REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}  # controls, invisible formatting, unassigned
# Default_Ignorable_Code_Point (Unicode's DerivedCoreProperties.txt) and blanks that are not white space.
_INVISIBLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
    (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x2800, 0x2800), (0x3164, 0x3164), (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D159, 0x1D159),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
_WINDOWS_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}


class InvalidName(ValueError):
    """The name cannot be used; `reason` is an i18n key (`name_empty`, `name_too_long`, `name_bad_character`)."""

    def __init__(self, reason: str, **params: object) -> None:
        super().__init__(reason)
        self.reason = reason
        self.params = params


@functools.lru_cache(maxsize=8192)  # every join checks every character of the name typed
def _invisible(char: str) -> bool:
    code = ord(char)
    return unicodedata.category(char) in _REFUSED_CATEGORIES or any(low <= code <= high for low, high in _INVISIBLE)


def display_name(name: str) -> str:
    """The name as shown: NFKC, white space collapsed; raises `InvalidName`."""
    text = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", name)).strip()
    for char in name + text:  # as typed (U+3164), and as normalised (it becomes U+1160)
        if _invisible(char) and not char.isspace():
            raise InvalidName("name_bad_character", code=f"U+{ord(char):04X}")
    if not text:
        raise InvalidName("name_empty")
    if len(text) > MAX_LENGTH:
        raise InvalidName("name_too_long", limit=MAX_LENGTH)
    if all(unicodedata.category(char).startswith("M") or char == " " for char in text):
        raise InvalidName("name_bad_character", code=f"U+{ord(text[0]):04X}")  # only combining marks: nothing shows
    return text


def student_key(name: str) -> str:
    """The case-folded name (stable under NFKC); its folder is `folder_name`."""
    return unicodedata.normalize("NFKC", display_name(name).casefold())


def skeleton(name: str) -> str:
    """What decides that two names are the same student: `student_key` with look-alikes made one."""
    classes = _look_alikes()
    return "".join(classes.get(char, char) for char in student_key(name))


@functools.cache
def _look_alikes() -> dict[str, str]:
    """Each character that has look-alikes -> the representative of its class (the lowest code point).

    The data lists, per character, the characters it is confusable with (Unicode's confusables.txt, both
    ways); the classes are its connected parts. Sequences (`rn` for `m`) are left out: one character for one.
    """
    from confusable_homoglyphs.utils import load

    parent: dict[str, str] = {}

    def find(char: str) -> str:
        while parent.get(char, char) != char:
            char = parent[char]
        return char

    for key, entries in load("confusables.json").items():
        if len(key) != 1:
            continue
        for entry in entries:
            other = entry["c"].strip("\u200e")  # right-to-left characters come wrapped in LRM marks
            if len(other) == 1:
                first, second = sorted((find(key), find(other)))
                if first != second:
                    parent[second] = first
    return {char: find(char) for char in parent}


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
