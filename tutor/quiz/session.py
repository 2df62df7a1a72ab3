"""A quiz session the app (or a test) drives: next question, submit, summary.

Order: the scheduler's agenda — concepts that are due first, then concepts
never practised, then the ones scheduled soonest — skipping concepts asked in
the last few questions so one weak concept does not fill the session. Each
question is a fresh variant of a template that covers the chosen concept.
A session with the same seed over the same progress asks the same questions.

```python
session = QuizSession(ConceptScheduler(store), count=10, seed=7)
while (question := session.next_question()) is not None:
    ...                                   # show question.step; the learner answers
    session.submit(Outcome.CORRECT, answer="[1, 2]", hints_used=0, duration_ms=5300)
summary = session.summary()
```
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from tutor.progress.model import QUIZ_LESSON, Attempt, Outcome
from tutor.progress.scheduler import ConceptScheduler
from tutor.quiz.generator import Question, QuizError, Template, builtin_templates, generate


@dataclass
class Tally:
    correct: int = 0
    wrong: int = 0
    revealed: int = 0

    def add(self, outcome: Outcome) -> None:
        name = {Outcome.CORRECT: "correct", Outcome.WRONG: "wrong", Outcome.REVEALED: "revealed"}[outcome]
        setattr(self, name, getattr(self, name) + 1)

    @property
    def asked(self) -> int:
        return self.correct + self.wrong + self.revealed


@dataclass(frozen=True)
class Drawn:
    """A question made for the session and the concept it was chosen for."""

    question: Question
    concept: str


@dataclass(frozen=True)
class SessionSummary:
    total: Tally
    concepts: dict[str, Tally]  # this session's results per concept
    next_due: dict[str, datetime]  # when each concept practised comes back
    attempts: list[Attempt] = field(default_factory=list)


class QuizSession:
    """`count` questions chosen by `scheduler` from `templates` (default: the built-in ones)."""

    def __init__(
        self,
        scheduler: ConceptScheduler,
        templates: Sequence[Template] | None = None,
        *,
        count: int = 10,
        seed: int | None = None,
        spacing: int = 2,
    ) -> None:
        if count < 1:
            raise ValueError("a quiz needs at least one question (--count 1 or more)")
        self.scheduler = scheduler
        self.count = count
        self.seed = seed
        self.spacing = spacing  # a concept is not asked again within this many questions, when avoidable
        self._rng = np.random.default_rng(seed)
        self._templates = list(templates if templates is not None else builtin_templates())
        self._asked: list[Question] = []
        self._attempts: list[Attempt] = []
        self._topics: list[str] = []  # the concept each question was chosen for

    @property
    def answered(self) -> int:
        return len(self._attempts)

    @property
    def finished(self) -> bool:
        return self.answered >= self.count

    @property
    def current(self) -> Question | None:
        """The question waiting for an answer, if any."""
        return self._asked[-1] if len(self._asked) > len(self._attempts) else None

    def next_question(self) -> Question | None:
        """The next question (the same one again until it is answered); None when the session is over. Reads the
        progress store and waits for the snippet worker: an app does the three parts apart (`review_order` on the
        store's thread, `draw` off the event loop, `ask`)."""
        if self.current is not None or self.finished:
            return self.current
        return self.ask(self.draw(self.review_order()))

    def review_order(self) -> list[str]:
        """The concepts the templates cover, in the scheduler's review order (reads the progress store: call it on
        the store's thread)."""
        askable = dict.fromkeys(c for t in self._templates for c in t.concepts)
        return [item.concept for item in self.scheduler.agenda(askable) if item.concept in askable]

    def draw(self, order: Sequence[str]) -> Drawn:
        """A new question on the first concept of `order` not asked lately; touches no store, so it may run on
        another thread (it asks the snippet worker, which may take seconds). A template that fails is dropped;
        raises `QuizError` when none is left."""
        while self._templates:
            askable = {c for t in self._templates for c in t.concepts}
            concept = self._next_concept([c for c in order if c in askable])
            choices = [t for t in self._templates if concept in t.concepts]
            template = choices[int(self._rng.integers(len(choices)))]
            seed = int(self._rng.integers(2**31))
            try:
                return Drawn(generate(template, seed), concept)
            except QuizError:
                self._templates.remove(template)  # a broken lesson template must not end the quiz
        raise QuizError("quiz_no_template")

    def ask(self, drawn: Drawn) -> Question:
        """`drawn` becomes the question waiting for an answer."""
        self._asked.append(drawn.question)
        self._topics.append(drawn.concept)
        return drawn.question

    def submit(
        self,
        outcome: Outcome | str,
        *,
        answer: str | None = None,
        hints_used: int = 0,
        duration_ms: int | None = None,
        misconception: str | None = None,
    ) -> Attempt:
        """Record the answer to the current question (committed at once) and reschedule its concepts (and
        those practising a misconception diagnosed behind it)."""
        question = self.current
        if question is None:
            raise RuntimeError("no question is waiting for an answer; call next_question() first")
        attempt = self.scheduler.record(
            lesson_id=QUIZ_LESSON,
            step_id=question.id,
            concepts=question.concepts,
            answer=answer,
            outcome=outcome,
            hints_used=hints_used,
            duration_ms=duration_ms,
            misconception=misconception,
        )
        self._attempts.append(attempt)
        return attempt

    def summary(self) -> SessionSummary:
        total, concepts = Tally(), {}
        for attempt in self._attempts:
            total.add(attempt.outcome)
            for concept in attempt.concepts:
                concepts.setdefault(concept, Tally()).add(attempt.outcome)
        next_due = {concept: self.scheduler.card(concept).due for concept in concepts}
        return SessionSummary(total, concepts, next_due, list(self._attempts))

    def _next_concept(self, agenda: Sequence[str]) -> str:
        recent = set(self._topics[-self.spacing:]) if self.spacing else set()
        return next((concept for concept in agenda if concept not in recent), agenda[0])
