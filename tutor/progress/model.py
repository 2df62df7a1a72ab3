"""The records the progress store keeps, and its error type.

Plain immutable records so the app, the quiz session and the statistics can
pass them around without touching SQLite: NamedTuples, not frozen dataclasses, whose methods are compiled
from source as the module is imported (about 0.5 ms each, on the way to the course view's first paint).
"""
from __future__ import annotations

from datetime import datetime, timezone
from enum import StrEnum
from typing import NamedTuple

from tutor.i18n import WordedError

QUIZ_LESSON = "quiz"  # the lesson id under which quiz attempts are recorded


class ProgressError(WordedError):
    """The progress store cannot do what was asked; the message (in the learner's language: `said`) says why and
    what to do."""


class Outcome(StrEnum):
    CORRECT = "correct"
    WRONG = "wrong"
    REVEALED = "revealed"  # the learner asked to see the answer


class LessonStatus(StrEnum):
    NEW = "new"
    IN_PROGRESS = "in progress"
    DONE = "done"


class Attempt(NamedTuple):
    """One answer to one step (or one quiz question), as recorded."""

    uid: str
    lesson_id: str  # QUIZ_LESSON for quiz questions
    step_id: str  # for quiz questions: "<template id>#<seed>"
    concepts: tuple[str, ...]
    answer: str | None  # the learner's answer as text (or JSON)
    outcome: Outcome
    hints_used: int
    duration_ms: int | None
    at: datetime  # UTC
    misconception: str | None = None  # the misconception diagnosed behind a wrong prediction (its id)


class Position(NamedTuple):
    """Where the learner left a lesson."""

    lesson_id: str
    step_id: str
    updated_at: datetime


class LessonProgress(NamedTuple):
    """How far a learner is in one lesson: the course view shows `status` and `solved`/`total`."""

    status: LessonStatus
    solved: frozenset[str]  # gradable steps answered correctly at least once
    total: int  # number of gradable steps


class Snapshot(NamedTuple):
    """Everything a progress store holds, as plain records: what an export writes and an import merges."""

    attempts: list[Attempt]
    positions: list[Position]
    cards: dict[str, tuple[str, datetime]]  # key -> (card JSON, updated_at)


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def to_iso(moment: datetime) -> str:
    """A timezone-aware moment as UTC ISO 8601 text (sorts chronologically as text)."""
    if moment.tzinfo is None:
        raise ValueError("progress timestamps must be timezone-aware")
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


def from_iso(text: str) -> datetime:
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"timestamp {text!r} has no timezone")
    return moment.astimezone(timezone.utc)
