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
from lessons.messages import say, term
from lessons.model import LocalText, Tolerance

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*$")
MISSING = object()


def toml_type(value: object) -> LocalText:
    """The TOML name of a value's type, for 'expected X, got Y' messages (in both languages)."""
    for types, name in ((bool, "boolean"), (int, "integer"), (float, "float"), (str, "string"), (list, "array"),
                        (dict, "table"), ((date, datetime, time), "datetime")):
        if isinstance(value, types):
            return term(name)
    return LocalText(type(value).__name__)


@dataclass
class Problems:
    """The problems found in one file, with the file's key-path -> line map."""

    path: str
    lines: dict[str, int]
    found: list[LessonError] = field(default_factory=list)

    def add(self, key_path: str, message: LocalText, *, at_value: bool = False) -> None:
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
                problems.add(self.at(key), say("key_elsewhere", key=key, reason=elsewhere[key]))
                continue
            close = difflib.get_close_matches(key, allowed, n=1, cutoff=cutoff)
            self.suggested.update(close)
            hint = say("did_you_mean", close=close[0]) if close else say("allowed_keys", keys=", ".join(sorted(allowed)))
            problems.add(self.at(key), say("unknown_key", key=key, hint=hint))

    def at(self, key: str | int) -> str:
        if isinstance(key, int):
            return f"{self.key_path}[{key}]"
        return f"{self.key_path}.{key}" if self.key_path else key

    def error(self, key: str, message: LocalText) -> None:
        self.problems.add(self.at(key), message, at_value=True)

    def raw(self, key: str, expected: LocalText, types: tuple[type, ...], required: bool):
        value = self.table.get(key, MISSING)
        if value is MISSING:
            if required and key not in self.suggested:
                self.problems.add(self.key_path, say("missing_key", key=key, expected=expected))
            return None
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            self.error(key, say("expected_got", expected=expected, got=toml_type(value)))
            return None
        return value

    def string(self, key: str, *, required: bool = False, nonempty: bool = True) -> str | None:
        value = self.raw(key, term("string"), (str,), required)
        if value is not None and nonempty and not value.strip():
            self.error(key, say("must_not_be_empty"))
            return None
        return value

    def boolean(self, key: str, default: bool = False) -> bool:
        value = self.raw(key, term("true_or_false"), (bool,), False)
        return default if value is None else value

    def integer(self, key: str, *, required: bool = False) -> int | None:
        return self.raw(key, term("integer"), (int,), required)

    def number(self, key: str, *, required: bool = False) -> float | None:
        return self.raw(key, term("number"), (int, float), required)

    def identifier(self, key: str, *, required: bool = True) -> str | None:
        value = self.string(key, required=required)
        if value is not None and not ID_PATTERN.match(value):
            self.error(key, say("invalid_id", value=value))
            return None
        return value

    def tags(self, key: str, *, required: bool = True) -> tuple[str, ...] | None:
        value = self.raw(key, term("tags"), (list,), required)
        if value is None:
            return None
        if required and not value:
            self.error(key, say("no_concept_tag"))
        tags = []
        for i, tag in enumerate(value):
            if not isinstance(tag, str) or not ID_PATTERN.match(tag):
                self.problems.add(f"{self.at(key)}[{i}]", say("invalid_tag", tag=repr(tag)))
            else:
                tags.append(tag)
        return tuple(tags)

    def text(self, key: str, *, required: bool = False) -> LocalText | None:
        value = self.table.get(key, MISSING)
        if value is MISSING:
            if required and key not in self.suggested:
                self.problems.add(self.key_path, say("missing_key", key=key, expected=term("text")))
            return None
        return read_text(value, self.at(key), self.problems)

    def texts(self, key: str) -> tuple[LocalText, ...]:
        value = self.raw(key, term("texts"), (list,), False)
        if value is None:
            return ()
        found = (read_text(item, f"{self.at(key)}[{i}]", self.problems) for i, item in enumerate(value))
        return tuple(text for text in found if text is not None)

    def tables(self, key: str, *, required: bool = False) -> list[tuple[str, dict]]:
        """An array of tables (`[[key]]`), as (key path, table) pairs."""
        value = self.raw(key, term("tables", key=key), (list,), required)
        if value is None:
            return []
        pairs = []
        for i, item in enumerate(value):
            if isinstance(item, dict):
                pairs.append((f"{self.at(key)}[{i}]", item))
            else:
                self.problems.add(f"{self.at(key)}[{i}]", say("expected_got", expected=term("table"),
                                                               got=toml_type(item)))
        return pairs

    def tolerance(self, key: str) -> Tolerance | None:
        value = self.raw(key, term("tolerance"), (dict,), False)
        if value is None:
            return None
        sub = Fields(value, self.at(key), self.problems, ["rtol", "atol"])
        default = Tolerance()
        parts = {}
        for name in ("rtol", "atol"):
            number = sub.number(name)
            if number is not None and number < 0:
                sub.error(name, say("must_not_be_negative"))
                number = None
            parts[name] = float(number) if number is not None else getattr(default, name)
        return Tolerance(**parts)


def read_text(value: object, key_path: str, problems: Problems) -> LocalText | None:
    """A text field: a plain string (English) or a table with `en` and optional `ja`."""
    if isinstance(value, str):
        if not value.strip():
            problems.add(key_path, say("text_must_not_be_empty"), at_value=True)
            return None
        return LocalText(value)
    if not isinstance(value, dict):
        problems.add(key_path, say("expected_got", expected=term("text_value"), got=toml_type(value)))
        return None
    fields = Fields(value, key_path, problems, ["en", "ja"], cutoff=0.5)
    en = fields.string("en", required=True)
    ja = fields.string("ja")
    return LocalText(en, ja) if en is not None else None
