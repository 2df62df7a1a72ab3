"""Concept scheduling with FSRS under a fake clock."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from fsrs import Card, Rating, State

from tutor.progress import Outcome, ProgressStore
from tutor.progress.scheduler import CardState, ConceptScheduler, rating_for


class Clock:
    def __init__(self) -> None:
        self.moment = datetime(2024, 4, 1, 8, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.moment

    def advance(self, **delta: float) -> None:
        self.moment += timedelta(**delta)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def scheduler(tmp_path: Path, clock: Clock) -> ConceptScheduler:
    return ConceptScheduler(ProgressStore(data_dir=tmp_path, now=clock), now=clock, enable_fuzzing=False)


def answer(scheduler: ConceptScheduler, concept: str, outcome: str, hints: int = 0) -> None:
    scheduler.record(lesson_id="quiz", step_id=f"{concept}#1", concepts=[concept], answer="1",
                     outcome=outcome, hints_used=hints)


def test_ratings() -> None:
    assert rating_for(Outcome.CORRECT, 0) is Rating.Good
    assert rating_for("correct", 2) is Rating.Hard
    assert rating_for("wrong", 0) is Rating.Again
    assert rating_for("revealed", 0) is Rating.Again


def test_wrong_answer_comes_back_sooner_than_right_one(scheduler: ConceptScheduler, clock: Clock) -> None:
    # bring both concepts to the Review state with the same history, then diverge
    for _ in range(3):
        answer(scheduler, "softmax", "correct")
        answer(scheduler, "matmul", "correct")
        clock.advance(days=1)
    clock.moment = max(scheduler.card("softmax").due, scheduler.card("matmul").due)
    answer(scheduler, "softmax", "wrong")
    answer(scheduler, "matmul", "correct")
    wrong, right = scheduler.card("softmax"), scheduler.card("matmul")
    assert wrong.state is State.Relearning and right.state is State.Review
    assert wrong.due - clock() <= timedelta(minutes=10) < timedelta(days=1) < right.due - clock()
    assert scheduler.due_concepts(now=clock() + timedelta(hours=1)) == ["softmax"]


def test_hints_give_a_shorter_interval_than_no_hints(scheduler: ConceptScheduler, clock: Clock) -> None:
    answer(scheduler, "exp", "correct", hints=0)
    answer(scheduler, "tanh", "correct", hints=1)
    assert scheduler.card("tanh").due < scheduler.card("exp").due


def test_due_cards_come_before_new_ones_then_scheduled(scheduler: ConceptScheduler, clock: Clock) -> None:
    answer(scheduler, "sum", "wrong")  # due again in 1 minute
    clock.advance(seconds=30)
    answer(scheduler, "mean", "wrong")
    answer(scheduler, "broadcasting", "correct")  # due in 10 minutes (second learning step)
    clock.advance(minutes=2)
    agenda = scheduler.agenda(candidates=["relu", "sum", "exp"])
    assert [(item.concept, item.state) for item in agenda] == [
        ("sum", CardState.DUE),
        ("mean", CardState.DUE),
        ("relu", CardState.NEW),
        ("exp", CardState.NEW),
        ("broadcasting", CardState.SCHEDULED),
    ]
    assert scheduler.due_concepts(candidates=["relu", "exp"]) == ["sum", "mean", "relu", "exp"]


def test_cards_are_stored_as_fsrs_json_with_utc_times(scheduler: ConceptScheduler, clock: Clock) -> None:
    answer(scheduler, "vjp", "correct")
    card = Card.from_json(scheduler.store.card("vjp"))
    assert card.last_review == clock() and card.due.tzinfo == timezone.utc
    assert scheduler.card("never-seen").due == clock()
