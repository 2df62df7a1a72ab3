"""Typed access to a parsed TOML table, collecting clear problems instead of raising.

The loader reads a lesson through `Fields`, which knows which keys a table
allows, reports unknown keys with a did-you-mean, names the expected type and
attaches the key path and file line to every problem.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from datetime import date, datetime, time

from lessons.errors import LessonError
from lessons.linemap import nearest_line, value_line
from lessons.model import LocalText, Tolerance

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*$")
MISSING = object()


def toml_type(value: object) -> str:
    """The TOML name of a value's type, for 'expected X, got Y' messages."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, (date, datetime, time)):
        return "a date/time"
    return type(value).__name__


@dataclass
class Problems:
    """The problems found in one file, with the file's key-path -> line map."""

    path: str
    lines: dict[str, int]
    found: list[LessonError] = field(default_factory=list)

    def add(self, key_path: str, message: str, *, at_value: bool = False) -> None:
        line = (value_line(self.lines, key_path) if at_value else None) or nearest_line(self.lines, key_path)
        self.found.append(LessonError(self.path, key_path, line, message))


class Fields:
    """One TOML table being read: typed getters that record problems and return None on error."""

    def __init__(self, table: dict, key_path: str, problems: Problems,
                 allowed: list[str], elsewhere: dict[str, str] | None = None, cutoff: float = 0.6):
        self.table = table
        self.key_path = key_path
        self.problems = problems
        self.suggested: set[str] = set()  # keys a typo was matched to: no "missing" error for them too
        for key in table:
            if key in allowed:
                continue
            if elsewhere and key in elsewhere:
                problems.add(self.at(key), f"key '{key}' is not used here ({elsewhere[key]})")
                continue
            close = difflib.get_close_matches(key, allowed, n=1, cutoff=cutoff)
            self.suggested.update(close)
            hint = f" — did you mean '{close[0]}'?" if close else f" (allowed keys: {', '.join(sorted(allowed))})"
            problems.add(self.at(key), f"unknown key '{key}'{hint}")

    def at(self, key: str | int) -> str:
        if isinstance(key, int):
            return f"{self.key_path}[{key}]"
        return f"{self.key_path}.{key}" if self.key_path else key

    def error(self, key: str, message: str) -> None:
        self.problems.add(self.at(key), message, at_value=True)

    def raw(self, key: str, expected: str, types: tuple[type, ...], required: bool):
        value = self.table.get(key, MISSING)
        if value is MISSING:
            if required and key not in self.suggested:
                self.problems.add(self.key_path, f"missing required key '{key}' ({expected})")
            return None
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            self.error(key, f"expected {expected}, got {toml_type(value)}")
            return None
        return value

    def string(self, key: str, *, required: bool = False, nonempty: bool = True) -> str | None:
        value = self.raw(key, "a string", (str,), required)
        if value is not None and nonempty and not value.strip():
            self.error(key, "must not be empty")
            return None
        return value

    def boolean(self, key: str, default: bool = False) -> bool:
        value = self.raw(key, "true or false", (bool,), False)
        return default if value is None else value

    def integer(self, key: str, *, required: bool = False) -> int | None:
        return self.raw(key, "an integer", (int,), required)

    def number(self, key: str, *, required: bool = False) -> float | None:
        return self.raw(key, "a number", (int, float), required)

    def identifier(self, key: str, *, required: bool = True) -> str | None:
        value = self.string(key, required=required)
        if value is not None and not ID_PATTERN.match(value):
            self.error(key, f"'{value}' is not a valid id: use lowercase letters, digits and '-' (like 'chain-rule')")
            return None
        return value

    def tags(self, key: str, *, required: bool = True) -> tuple[str, ...] | None:
        value = self.raw(key, "an array of tags", (list,), required)
        if value is None:
            return None
        if required and not value:
            self.error(key, "list at least one concept tag")
        tags = []
        for i, tag in enumerate(value):
            if not isinstance(tag, str) or not ID_PATTERN.match(tag):
                self.problems.add(f"{self.at(key)}[{i}]",
                                  f"{tag!r} is not a valid tag: use lowercase letters, digits and '-'")
            else:
                tags.append(tag)
        return tuple(tags)

    def text(self, key: str, *, required: bool = False) -> LocalText | None:
        value = self.table.get(key, MISSING)
        if value is MISSING:
            if required and key not in self.suggested:
                self.problems.add(self.key_path, f"missing required key '{key}' (a text: a string or {{ en = \"…\", ja = \"…\" }})")
            return None
        return read_text(value, self.at(key), self.problems)

    def texts(self, key: str) -> tuple[LocalText, ...]:
        value = self.raw(key, "an array of texts", (list,), False)
        if value is None:
            return ()
        found = (read_text(item, f"{self.at(key)}[{i}]", self.problems) for i, item in enumerate(value))
        return tuple(text for text in found if text is not None)

    def tables(self, key: str, *, required: bool = False) -> list[tuple[str, dict]]:
        """An array of tables (`[[key]]`), as (key path, table) pairs."""
        value = self.raw(key, f"an array of tables ([[{key}]] sections)", (list,), required)
        if value is None:
            return []
        pairs = []
        for i, item in enumerate(value):
            if isinstance(item, dict):
                pairs.append((f"{self.at(key)}[{i}]", item))
            else:
                self.problems.add(f"{self.at(key)}[{i}]", f"expected a table, got {toml_type(item)}")
        return pairs

    def tolerance(self, key: str) -> Tolerance | None:
        value = self.raw(key, "a table { rtol = …, atol = … }", (dict,), False)
        if value is None:
            return None
        sub = Fields(value, self.at(key), self.problems, ["rtol", "atol"])
        default = Tolerance()
        parts = {}
        for name in ("rtol", "atol"):
            number = sub.number(name)
            if number is not None and number < 0:
                sub.error(name, "must not be negative")
                number = None
            parts[name] = float(number) if number is not None else getattr(default, name)
        return Tolerance(**parts)


def read_text(value: object, key_path: str, problems: Problems) -> LocalText | None:
    """A text field: a plain string (English) or a table with `en` and optional `ja`."""
    if isinstance(value, str):
        if not value.strip():
            problems.add(key_path, "text must not be empty", at_value=True)
            return None
        return LocalText(value)
    if not isinstance(value, dict):
        problems.add(key_path, f"expected a text (a string or {{ en = \"…\", ja = \"…\" }}), got {toml_type(value)}")
        return None
    fields = Fields(value, key_path, problems, ["en", "ja"], cutoff=0.5)
    en = fields.string("en", required=True)
    ja = fields.string("ja")
    return LocalText(en, ja) if en is not None else None
