"""The JSON export format that moves progress between machines.

```json
{"format": "autograd-tutor-progress", "version": 1, "exported_at": "<UTC ISO>",
 "attempts":  [{"uid", "lesson_id", "step_id", "concepts", "answer", "outcome",
                "hints_used", "duration_ms", "at"}],
 "positions": [{"lesson_id", "step_id", "updated_at"}],
 "cards":     [{"key", "card": <fsrs Card.to_dict()>, "updated_at"}]}
```
Reading validates everything before anything is written, and every problem is
reported with the file and the place inside it (`attempts[3].outcome`).
"""
from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

from lessons.atomic_file import write_atomically
from tutor.progress.model import Attempt, Outcome, Position, ProgressError, Snapshot, from_iso, to_iso

# Files exported before schema v3 called "show answer" `skipped`
_RENAMED_OUTCOMES = {"skipped": Outcome.REVEALED.value}

FORMAT = "autograd-tutor-progress"
VERSION = 1


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
        raise ProgressError(f"Cannot write {path}: {error.strerror or error}") from error


def read_document(path: Path) -> Document:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as error:
        raise ProgressError(f"{path}: no such file") from error
    except (OSError, UnicodeDecodeError) as error:
        raise ProgressError(f"{path}: cannot read it ({error})") from error
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ProgressError(
            f"{path}: not valid JSON (line {error.lineno}, column {error.colno}: {error.msg}). "
            "Use a file made by `autograd-tutor progress --export`."
        ) from error
    return _Reader(path).document(data)


class _Reader:
    """Validates a parsed export; `fail` names the place inside the file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, message: str) -> ProgressError:
        return ProgressError(f"{self.path}: {where}: {message}")

    def document(self, data: object) -> Document:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ProgressError(
                f"{self.path}: not an autograd-tutor progress export "
                f'(expected a JSON object with "format": "{FORMAT}")'
            )
        if data.get("version") != VERSION:
            raise ProgressError(
                f"{self.path}: export version {data.get('version')!r}; this autograd-tutor reads version {VERSION}. "
                "Upgrade autograd-tutor to import it."
            )
        return Document(
            attempts=[self.attempt(f"attempts[{i}]", item) for i, item in enumerate(self.items(data, "attempts"))],
            positions=[self.position(f"positions[{i}]", item) for i, item in enumerate(self.items(data, "positions"))],
            cards=dict(self.card(f"cards[{i}]", item) for i, item in enumerate(self.items(data, "cards"))),
        )

    def items(self, data: dict, key: str) -> list[dict]:
        items = data.get(key, [])
        if not isinstance(items, list):
            raise self.fail(key, "expected a list")
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                raise self.fail(f"{key}[{i}]", "expected an object")
        return items

    def field(self, where: str, item: dict, key: str, kind: type | tuple[type, ...], optional: bool = False) -> Any:
        if key not in item:
            if optional:
                return None
            raise self.fail(where, f'missing "{key}"')
        value = item[key]
        if value is None and optional:
            return None
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise self.fail(f"{where}.{key}", f"expected {names}, got {json.dumps(value)}")
        return value

    def moment(self, where: str, item: dict, key: str) -> datetime:
        text = self.field(where, item, key, str)
        try:
            return from_iso(text)
        except ValueError as error:
            raise self.fail(f"{where}.{key}", f"not a timezone-aware ISO 8601 time: {text!r}") from error

    def attempt(self, where: str, item: dict) -> Attempt:
        concepts = self.field(where, item, "concepts", list)
        if not all(isinstance(c, str) for c in concepts):
            raise self.fail(f"{where}.concepts", "expected a list of strings")
        outcome = self.field(where, item, "outcome", str)
        outcome = _RENAMED_OUTCOMES.get(outcome, outcome)
        if outcome not in {o.value for o in Outcome}:
            raise self.fail(f"{where}.outcome", f"expected one of {', '.join(o.value for o in Outcome)}, got {outcome!r}")
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
            card_json = Card.from_dict(card).to_json()
        except (KeyError, TypeError, ValueError) as error:
            raise self.fail(f"{where}.card", f"not a scheduler card ({error!r})") from error
        return self.field(where, item, "key", str), (card_json, self.moment(where, item, "updated_at"))
