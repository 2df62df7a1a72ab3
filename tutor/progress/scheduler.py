"""Spaced repetition by concept, with FSRS (the `fsrs` package, 6.x).

Each concept tag (`jacobian`, `broadcasting`, …) is one FSRS card, stored as
`Card.to_json()` in the progress store. Every attempt, in a lesson or a quiz,
reviews the cards of the concepts it exercised:

| attempt                      | rating      |
|------------------------------|-------------|
| correct, no hint             | Good        |
| correct after hints          | Hard        |
| wrong                        | Again       |
| revealed                     | Again       |

Easy is never given: a fast answer is as likely a lucky guess as mastery, and
Good already spaces a remembered concept out quickly. Asking for the answer is the learner
saying "I don't know", so it brings the concept back as soon as a wrong answer.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from enum import StrEnum

from fsrs import Card, Rating, Scheduler

from tutor.progress.model import Attempt, Outcome, utc_now
from tutor.progress.store import ProgressStore


class CardState(StrEnum):
    DUE = "due"  # reviewed before, due now
    NEW = "new"  # never reviewed
    SCHEDULED = "scheduled"  # reviewed, due later


@dataclass(frozen=True)
class AgendaItem:
    concept: str
    state: CardState
    due: datetime | None  # None for new concepts


def rating_for(outcome: Outcome | str, hints_used: int) -> Rating:
    outcome = Outcome(outcome)
    if outcome is Outcome.CORRECT:
        return Rating.Hard if hints_used else Rating.Good
    return Rating.Again


class ConceptScheduler:
    """Records attempts and keeps one FSRS card per concept up to date.

    `now` is injectable so tests can move time; `enable_fuzzing=False` makes
    intervals exact (tests), the default spreads reviews out a little like Anki.
    """

    def __init__(
        self,
        store: ProgressStore,
        *,
        now: Callable[[], datetime] = utc_now,
        enable_fuzzing: bool = True,
    ) -> None:
        self.store = store
        self.now = now
        self.fsrs = Scheduler(enable_fuzzing=enable_fuzzing)

    def record(
        self,
        *,
        lesson_id: str,
        step_id: str,
        concepts: Iterable[str],
        answer: str | None,
        outcome: Outcome | str,
        hints_used: int = 0,
        duration_ms: int | None = None,
        misconception: str | None = None,
    ) -> Attempt:
        """Record an attempt and review its concepts' cards, in one transaction. A misconception diagnosed
        behind it (`lessons/misconceptions.toml`) also reviews the concepts that practise it, as failed: the
        quiz brings back their templates."""
        moment = self.now().astimezone(timezone.utc)
        rating = rating_for(outcome, hints_used)
        concepts = tuple(concepts)

        def review(key: str, stored: str | None) -> str:
            card = self._card(key, stored, moment)
            card, _log = self.fsrs.review_card(card, rating, review_datetime=moment, review_duration=duration_ms)
            return card.to_json()

        return self.store.record_attempt(
            lesson_id=lesson_id,
            step_id=step_id,
            concepts=concepts,
            answer=answer,
            outcome=outcome,
            hints_used=hints_used,
            duration_ms=duration_ms,
            at=moment,
            update_cards=review,
            card_keys=dict.fromkeys((*concepts, *misconception_concepts(misconception))),
            misconception=misconception,
        )

    def card(self, concept: str) -> Card:
        """The concept's card (a new one, due now, if it was never reviewed)."""
        return self._card(concept, self.store.card(concept), self.now().astimezone(timezone.utc))

    def agenda(self, candidates: Iterable[str] = (), now: datetime | None = None) -> list[AgendaItem]:
        """Every known concept plus `candidates`, in review order.

        Due concepts first (most overdue first), then new ones (in the order of
        `candidates`), then the scheduled ones (soonest first).
        """
        now = (now or self.now()).astimezone(timezone.utc)
        cards = {key: Card.from_json(text) for key, text in self.store.cards().items()}
        due = sorted((card.due, key) for key, card in cards.items() if card.due <= now)
        later = sorted((card.due, key) for key, card in cards.items() if card.due > now)
        new = [key for key in dict.fromkeys(candidates) if key not in cards]
        return (
            [AgendaItem(key, CardState.DUE, when) for when, key in due]
            + [AgendaItem(key, CardState.NEW, None) for key in new]
            + [AgendaItem(key, CardState.SCHEDULED, when) for when, key in later]
        )

    def due_concepts(self, candidates: Iterable[str] = (), now: datetime | None = None) -> list[str]:
        """Concepts to practise now: due ones first, then new ones from `candidates`."""
        return [item.concept for item in self.agenda(candidates, now) if item.state is not CardState.SCHEDULED]

    @staticmethod
    def _card(key: str, stored: str | None, moment: datetime) -> Card:
        if stored is not None:
            return Card.from_json(stored)
        # an explicit id and due date: Card() would otherwise read the wall clock (and sleep 1 ms)
        return Card(card_id=_stable_id(key), due=moment)


def _stable_id(key: str) -> int:
    """A card id derived from the concept name, so the same concept has the same id on every machine."""
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:6], "big")


def misconception_concepts(misconception: str | None) -> tuple[str, ...]:
    """The concept tags whose practice a diagnosed misconception calls for (none for an unknown id)."""
    if misconception is None:
        return ()
    from lessons.misconceptions import CATALOGUE

    entry = CATALOGUE.get(misconception)
    return entry.concepts if entry is not None else ()
