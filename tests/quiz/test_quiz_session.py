"""A quiz session driven like the app drives it, over a fake clock; lesson-declared templates."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from lessons.course import load_course
from lessons.folders import bundled_dir
from tutor.progress import QUIZ_LESSON, Outcome, ProgressStore
from tutor.progress.scheduler import ConceptScheduler
from tutor.quiz import QuizError, QuizSession, Template, builtin_templates, generate, lesson_templates


class Clock:
    def __init__(self) -> None:
        self.moment = datetime(2024, 9, 1, 9, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.moment


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def scheduler(tmp_path: Path, clock: Clock) -> ConceptScheduler:
    return ConceptScheduler(ProgressStore(data_dir=tmp_path, now=clock), now=clock, enable_fuzzing=False)


def play(session: QuizSession, outcome_for) -> list[str]:
    asked = []
    while (question := session.next_question()) is not None:
        assert session.next_question() is question  # unanswered: the same question again
        session.submit(outcome_for(question), answer="[0.]", duration_ms=1200)
        asked.append(question.id)
    return asked


def test_full_session_records_every_attempt_and_summarises(scheduler: ConceptScheduler) -> None:
    session = QuizSession(scheduler, count=6, seed=11)
    outcomes = iter([Outcome.CORRECT, Outcome.WRONG, Outcome.REVEALED, Outcome.CORRECT, Outcome.CORRECT, Outcome.WRONG])
    asked = play(session, lambda q: next(outcomes))
    assert len(asked) == len(set(asked)) == 6 and session.finished
    stored = scheduler.store.attempts(QUIZ_LESSON)
    assert [a.step_id for a in stored] == asked
    summary = session.summary()
    assert (summary.total.correct, summary.total.wrong, summary.total.revealed) == (3, 2, 1)
    for concept, tally in summary.concepts.items():
        counted = [a for a in stored if concept in a.concepts]
        assert tally.asked == len(counted)
        assert summary.next_due[concept] == scheduler.card(concept).due
    with pytest.raises(RuntimeError, match="next_question"):
        session.submit(Outcome.CORRECT)


def test_same_seed_same_session(tmp_path: Path, clock: Clock) -> None:
    def questions(folder: str) -> list[str]:
        store = ProgressStore(data_dir=tmp_path / folder, now=clock)
        session = QuizSession(ConceptScheduler(store, now=clock, enable_fuzzing=False), count=5, seed=3)
        return [(q.id, q.step.snippet) for q in iter(lambda: _answer_correctly(session), None)]

    assert questions("a") == questions("b")


def _answer_correctly(session: QuizSession):
    question = session.next_question()
    if question is not None:
        session.submit(Outcome.CORRECT)
    return question


def test_due_concepts_are_asked_first_then_new(scheduler: ConceptScheduler, clock: Clock) -> None:
    scheduler.record(lesson_id="l", step_id="s", concepts=["softmax"], answer="?", outcome="wrong")
    scheduler.record(lesson_id="l", step_id="t", concepts=["matmul"], answer="?", outcome="correct")
    clock.moment += timedelta(minutes=5)  # softmax (Again: 1 min) is due; matmul (Good: 10 min) is not
    session = QuizSession(scheduler, count=3, seed=0)
    first = session.next_question()
    assert "softmax" in first.concepts
    session.submit(Outcome.CORRECT)
    second = session.next_question()
    assert "elementwise-derivative" in second.concepts  # the first never-practised concept
    assert all("matmul" not in q.concepts for q in (first, second))


def test_wrong_concept_comes_back_in_a_later_session(scheduler: ConceptScheduler, clock: Clock) -> None:
    only = [t for t in builtin_templates() if t.id in ("softmax", "matmul")]
    play(QuizSession(scheduler, only, count=2, seed=5),
         lambda q: Outcome.WRONG if "softmax" in q.concepts else Outcome.CORRECT)
    clock.moment += timedelta(minutes=3)
    session = QuizSession(scheduler, only, count=1, seed=6)
    assert "softmax" in session.next_question().concepts


def test_lesson_templates_make_questions(scheduler: ConceptScheduler) -> None:
    course = load_course(user_dir=bundled_dir() / "no-such-folder")
    templates = lesson_templates(course.lessons)
    assert templates, "the bundled lessons declare quiz templates"
    for template in templates:
        for seed in range(10):
            question = generate(template, seed)
            assert question.id == f"{template.id}#{seed}" and question.lesson.id == template.lesson.id
            assert question.answer.kind in ("tensor", "number", "bool", "none", "text")
    play(QuizSession(scheduler, templates, count=3, seed=1), lambda q: Outcome.CORRECT)


def test_a_broken_template_is_dropped_not_fatal(scheduler: ConceptScheduler) -> None:
    def failing(rng):
        raise QuizError("boom")

    good = builtin_templates()[0]
    broken = Template("broken", good.concepts, good.source.__class__(**{**good.source.__dict__, "build": failing}))
    with pytest.raises(QuizError):
        generate(broken, 0)
    session = QuizSession(scheduler, [broken, good], count=2, seed=0)
    assert session.next_question().template_id == good.id
    with pytest.raises(QuizError, match="no quiz template"):
        QuizSession(scheduler, [broken], count=1).next_question()


def test_count_must_be_positive(scheduler: ConceptScheduler) -> None:
    with pytest.raises(ValueError, match="--count"):
        QuizSession(scheduler, count=0)
