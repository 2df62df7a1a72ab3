"""Numbers for the Stats screen and `autograd-tutor progress`.

Per-concept accuracy and next review, streaks of practice days and an
accuracy-over-time series. Days are counted in the learner's local time zone
(a session at 00:30 belongs to the day the learner thinks it does); pass `tz`
to pin it in tests.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo

from tutor.progress.model import Attempt, Outcome
from tutor.progress.scheduler import CardState, ConceptScheduler


@dataclass(frozen=True)
class ConceptStats:
    concept: str
    correct: int
    wrong: int
    revealed: int
    state: CardState  # due now / new / scheduled later
    due: datetime | None  # None for a concept never reviewed

    @property
    def attempts(self) -> int:
        return self.correct + self.wrong + self.revealed

    @property
    def accuracy(self) -> float | None:
        """Share of attempts answered correctly (revealed answers count as not correct); None without attempts."""
        return self.correct / self.attempts if self.attempts else None


@dataclass(frozen=True)
class Streak:
    current: int  # consecutive practice days ending today (or yesterday: today is not over yet)
    longest: int
    last_day: date | None


@dataclass(frozen=True)
class DayPoint:
    day: date
    attempts: int
    correct: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.attempts


def concept_stats(scheduler: ConceptScheduler, now: datetime | None = None) -> list[ConceptStats]:
    """Every concept with attempts or a card, in review order (due first, then new, then by due date)."""
    counts = scheduler.store.concept_counts()
    stats = []
    for item in scheduler.agenda(candidates=counts, now=now):
        tally = counts.get(item.concept, {})
        stats.append(ConceptStats(
            item.concept,
            tally.get(Outcome.CORRECT, 0),
            tally.get(Outcome.WRONG, 0),
            tally.get(Outcome.REVEALED, 0),
            item.state,
            item.due,
        ))
    return stats


@dataclass(frozen=True)
class MisconceptionStats:
    misconception: str  # an id of lessons/misconceptions.toml
    count: int  # wrong predictions it was diagnosed behind
    last_lesson: str  # where it was diagnosed last
    last_step: str
    last_at: datetime


def misconception_stats(attempts: Iterable[Attempt]) -> list[MisconceptionStats]:
    """The misconceptions diagnosed behind the learner's wrong predictions, the most frequent first."""
    found: dict[str, list] = {}
    for attempt in attempts:
        if attempt.misconception is None:
            continue
        entry = found.setdefault(attempt.misconception, [0, attempt])
        entry[0] += 1
        if attempt.at >= entry[1].at:
            entry[1] = attempt
    rows = [MisconceptionStats(key, count, last.lesson_id, last.step_id, last.at) for key, (count, last) in found.items()]
    return sorted(rows, key=lambda row: (-row.count, -row.last_at.timestamp(), row.misconception))


def practice_days(attempts: Iterable[Attempt], tz: tzinfo | None = None) -> list[date]:
    return sorted({_local_day(a.at, tz) for a in attempts})


def streak(attempts: Iterable[Attempt], today: date, tz: tzinfo | None = None) -> Streak:
    days = practice_days(attempts, tz)
    longest, run, previous = 0, 0, None
    for day in days:
        run = run + 1 if previous is not None and day - previous == timedelta(days=1) else 1
        longest, previous = max(longest, run), day
    current = run if previous is not None and today - previous <= timedelta(days=1) else 0
    return Streak(current, longest, previous)


def accuracy_over_time(
    attempts: Iterable[Attempt], tz: tzinfo | None = None, concept: str | None = None
) -> list[DayPoint]:
    """One point per practice day (optionally for one concept): attempts and correct answers that day."""
    per_day: dict[date, list[int]] = defaultdict(lambda: [0, 0])
    for attempt in attempts:
        if concept is not None and concept not in attempt.concepts:
            continue
        tally = per_day[_local_day(attempt.at, tz)]
        tally[0] += 1
        tally[1] += attempt.outcome is Outcome.CORRECT
    return [DayPoint(day, total, correct) for day, (total, correct) in sorted(per_day.items())]


def _local_day(moment: datetime, tz: tzinfo | None) -> date:
    return moment.astimezone(tz).date()
