"""The JSON export format that moves progress between machines.

```json
{"format": "autograd-tutor-progress", "version": 1, "exported_at": "<UTC ISO>",
 "attempts":  [{"uid", "lesson_id", "step_id", "concepts", "answer", "outcome",
                "hints_used", "duration_ms", "at", "misconception"}],
 "positions": [{"lesson_id", "step_id", "updated_at"}],
 "cards":     [{"key", "card": <fsrs Card.to_dict()>, "updated_at"}]}
```
`misconception` (the id of the misconception diagnosed behind a wrong prediction, or null) may be absent
in files written before it existed. Reading validates everything before anything is written, and every problem is
reported with the file and the place inside it (`attempts[3].outcome`). An import file may come from
anyone, so it is read only if it is a regular file of at most `MAX_IMPORT_BYTES`, and every value is
bounded before it reaches the database: integers, text (valid Unicode, no lone surrogate), times.
"""
from __future__ import annotations

import json
import math
import os
import stat
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from lessons.atomic_file import write_atomically
from tutor.progress.model import Attempt, Outcome, Position, ProgressError, Snapshot, from_iso, to_iso

# Files exported before schema v3 called "show answer" `skipped`
_RENAMED_OUTCOMES = {"skipped": Outcome.REVEALED.value}

FORMAT = "autograd-tutor-progress"
VERSION = 1
MAX_IMPORT_BYTES = 64_000_000  # about 250,000 attempts; a learner's years of answers are far fewer
MAX_INTEGER = 2**53  # counts and durations (JSON's exact integers); SQLite stores at most 2**63 - 1
MAX_TEXT = 100_000  # characters in one id, concept or answer
MAX_DEPTH = 8  # lists and objects inside each other: an export has document > list > item > card
_EARLIEST, _LATEST = datetime(2000, 1, 1, tzinfo=timezone.utc), datetime(2200, 1, 1, tzinfo=timezone.utc)


Document = Snapshot  # what a valid export file holds


def export_json(store, path: str | os.PathLike[str]) -> int:
    """Write `store`'s snapshot to a JSON file; returns the number of attempts written."""
    document = export_document(store.snapshot(), store.now())
    write_document(Path(path), document)
    return len(document["attempts"])


def import_json(store, path: str | os.PathLike[str]) -> dict[str, int]:
    """Merge an exported file into `store` (all or nothing, idempotent); raises `ProgressError`
    naming the file and the problem if it is not valid. Returns counts of what changed."""
    return store.merge(read_document(Path(path)))


def export_document(snapshot: Snapshot, now: datetime) -> dict[str, Any]:
    attempts, positions, cards = snapshot.attempts, snapshot.positions, snapshot.cards
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": to_iso(now),
        "attempts": [
            {
                "uid": a.uid,
                "lesson_id": a.lesson_id,
                "step_id": a.step_id,
                "concepts": list(a.concepts),
                "answer": a.answer,
                "outcome": a.outcome.value,
                "hints_used": a.hints_used,
                "duration_ms": a.duration_ms,
                "at": to_iso(a.at),
                "misconception": a.misconception,
            }
            for a in attempts
        ],
        "positions": [
            {"lesson_id": p.lesson_id, "step_id": p.step_id, "updated_at": to_iso(p.updated_at)} for p in positions
        ],
        "cards": [
            {"key": key, "card": json.loads(card), "updated_at": to_iso(updated)}
            for key, (card, updated) in cards.items()
        ],
    }


def write_document(path: Path, document: dict[str, Any]) -> None:
    """Write atomically (temp file + rename) so a crash never leaves half an export."""
    try:
        write_atomically(path, json.dumps(document, ensure_ascii=False, indent=1))
    except OSError as error:
        raise ProgressError("export_cannot_write", path=path, reason=error.strerror or error) from error


def read_document(path: Path) -> Document:
    text = _read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ProgressError("import_not_json", path=path, line=error.lineno, column=error.colno,
                            reason=error.msg) from error
    except ValueError as error:  # an integer of more than 4300 digits
        raise ProgressError(f"{path}: a number in it is far too long ({error}); this is not an export") from error
    except RecursionError as error:
        raise ProgressError(f"{path}: its JSON nests far deeper than an export does; this is not an export") \
            from error
    if _deeper_than(data, MAX_DEPTH):
        raise ProgressError(f"{path}: its JSON nests more than {MAX_DEPTH} deep; an export nests 4 deep")
    return _Reader(path).document(data)


def _deeper_than(data: object, limit: int) -> bool:
    """Whether lists and objects nest more than `limit` deep (without recursion)."""
    level: list[object] = [data]
    for _ in range(limit + 1):
        level = [child for item in level
                 for child in (item.values() if isinstance(item, dict) else item if isinstance(item, list) else ())]
        if not level:
            return False
    return True


def _read_text(path: Path) -> str:
    """The file's text, reading only a regular file (a FIFO would block, /dev/zero never end) of at most
    `MAX_IMPORT_BYTES`; opened without blocking and checked on the opened file itself."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError as error:
        raise ProgressError("import_no_file", path=path) from error
    except OSError as error:
        raise ProgressError("import_cannot_read", path=path, reason=error.strerror or error) from error
    with open(descriptor, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ProgressError("import_not_regular", path=path)
        if info.st_size > MAX_IMPORT_BYTES:
            raise ProgressError("import_too_large", path=path, size=f"{info.st_size / 1e6:.0f}",
                                limit=MAX_IMPORT_BYTES // 1_000_000)
        try:
            data = file.read(MAX_IMPORT_BYTES + 1)
        except OSError as error:
            raise ProgressError("import_cannot_read", path=path, reason=error.strerror or error) from error
    if len(data) > MAX_IMPORT_BYTES:
        raise ProgressError("import_larger_than", path=path, limit=MAX_IMPORT_BYTES // 1_000_000)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ProgressError("import_not_utf8", path=path, byte=error.start) from error


class _Reader:
    """Validates a parsed export; `fail` names the place inside the file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, said: str, **params: object) -> ProgressError:
        """The file, the place in it and the problem there (`said`: a catalogue key, in the learner's language)."""
        return ProgressError("import_invalid", path=self.path, where=where, problem=(said, params))

    def document(self, data: object) -> Document:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ProgressError("import_not_export", path=self.path, format=FORMAT)
        if data.get("version") != VERSION:
            raise ProgressError("import_version", path=self.path, version=repr(data.get("version")), latest=VERSION)
        return Document(
            attempts=[self.attempt(f"attempts[{i}]", item) for i, item in enumerate(self.items(data, "attempts"))],
            positions=[self.position(f"positions[{i}]", item) for i, item in enumerate(self.items(data, "positions"))],
            cards=dict(self.card(f"cards[{i}]", item) for i, item in enumerate(self.items(data, "cards"))),
        )

    def items(self, data: dict, key: str) -> list[dict]:
        items = data.get(key, [])
        if not isinstance(items, list):
            raise self.fail(key, "import_expected_list")
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                raise self.fail(f"{key}[{i}]", "import_expected_object")
        return items

    def field(self, where: str, item: dict, key: str, kind: type | tuple[type, ...], optional: bool = False) -> Any:
        if key not in item:
            if optional:
                return None
            raise self.fail(where, "import_missing", name=key)
        value = item[key]
        if value is None and optional:
            return None
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise self.fail(f"{where}.{key}", "import_expected_kind", names=names, value=_shown(value))
        if isinstance(value, int) and not 0 <= value <= MAX_INTEGER:
            raise self.fail(f"{where}.{key}", "import_expected_count", value=_shown(value))
        if isinstance(value, str):
            self.check_text(f"{where}.{key}", value)
        return value

    def check_text(self, where: str, value: str) -> None:
        if len(value) > MAX_TEXT:
            raise self.fail(where, "import_text_too_long", length=len(value), limit=MAX_TEXT)
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:
            raise self.fail(where, "import_lone_surrogate", code=f"{ord(value[error.start]):04x}",
                            index=error.start) from error

    def moment(self, where: str, item: dict, key: str) -> datetime:
        text = self.field(where, item, key, str)
        try:
            moment = from_iso(text)
        except (ValueError, OverflowError) as error:
            raise self.fail(f"{where}.{key}", "import_not_a_time", value=_shown(text)) from error
        return self.in_range(f"{where}.{key}", moment)

    def in_range(self, where: str, moment: datetime) -> datetime:
        if not _EARLIEST <= moment < _LATEST:
            raise self.fail(where, "import_time_range", time=moment.isoformat())
        return moment

    def attempt(self, where: str, item: dict) -> Attempt:
        concepts = self.field(where, item, "concepts", list)
        if not all(isinstance(c, str) for c in concepts):
            raise self.fail(f"{where}.concepts", "import_expected_strings")
        for i, concept in enumerate(concepts):
            self.check_text(f"{where}.concepts[{i}]", concept)
        outcome = self.field(where, item, "outcome", str)
        outcome = _RENAMED_OUTCOMES.get(outcome, outcome)
        if outcome not in {o.value for o in Outcome}:
            raise self.fail(f"{where}.outcome", "import_expected_outcome", outcomes=", ".join(o.value for o in Outcome),
                            value=repr(outcome))
        return Attempt(
            uid=self.field(where, item, "uid", str),
            lesson_id=self.field(where, item, "lesson_id", str),
            step_id=self.field(where, item, "step_id", str),
            concepts=tuple(concepts),
            answer=self.field(where, item, "answer", str, optional=True),
            outcome=Outcome(outcome),
            hints_used=self.field(where, item, "hints_used", int),
            duration_ms=self.field(where, item, "duration_ms", int, optional=True),
            at=self.moment(where, item, "at"),
            misconception=self.field(where, item, "misconception", str, optional=True),
        )

    def position(self, where: str, item: dict) -> Position:
        return Position(
            self.field(where, item, "lesson_id", str),
            self.field(where, item, "step_id", str),
            self.moment(where, item, "updated_at"),
        )

    def card(self, where: str, item: dict) -> tuple[str, tuple[str, datetime]]:
        from fsrs import Card

        card = self.field(where, item, "card", dict)
        try:
            parsed = Card.from_dict(card)
            problem = _card_problem(parsed)
            card_json = parsed.to_json()
        except (KeyError, TypeError, ValueError, OverflowError, RecursionError) as error:
            raise self.fail(f"{where}.card", "import_not_a_card", error=_shown(error)) from error
        if problem is not None:
            raise self.fail(f"{where}.card", "import_not_a_card_because", problem=problem)
        for moment in (parsed.due, parsed.last_review):
            if moment is not None:
                self.in_range(f"{where}.card", moment)
        return self.field(where, item, "key", str), (card_json, self.moment(where, item, "updated_at"))


def _card_problem(card) -> str | None:
    """What is wrong with a parsed fsrs card, or None: the scheduler computes with these values later."""
    if not 0 <= card.card_id <= MAX_INTEGER:
        return "card_id out of range"
    if card.step is not None and (not isinstance(card.step, int) or isinstance(card.step, bool)
                                  or not 0 <= card.step <= 100):
        return "step must be a small whole number"
    for name in ("stability", "difficulty"):
        value = getattr(card, name)
        if value is not None and not (math.isfinite(value) and 0 <= value <= 1e6):
            return f"{name} must be a finite number from 0 to 1e6"
    if card.due.tzinfo is None or (card.last_review is not None and card.last_review.tzinfo is None):
        return "due and last_review must be timezone-aware times"
    return None


def _shown(value: object) -> str:
    """A value quoted in a message: repr (control characters escaped), and cut if long."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
