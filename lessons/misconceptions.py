"""The catalogue of misconceptions (`misconceptions.toml`) and how a wrong answer is matched against it.

The answers themselves come from the engine: `believed` runs the step's program in the sandbox worker once
per buggy rule (`engine.explain.beliefs`), as every snippet runs. `diagnose` names a misconception only when
the learner's answer equals, at the precision typed, the answer of exactly one of them, and that answer is
not the correct one: never a guess. `telling_apart` is what `check` reports per step.
"""
from __future__ import annotations

import threading
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lessons.answers import Answer, compare
from lessons.values import Plain, UnsupportedValue, classify, same

CATALOGUE_PATH = Path(__file__).with_name("misconceptions.toml")


@dataclass(frozen=True)
class Misconception:
    id: str
    name: dict[str, str]      # {"en": …, "ja": …}
    explain: dict[str, str]   # one sentence each
    teach: str                # "lesson-id:step-id": the step that teaches the right idea
    concepts: tuple[str, ...]  # concept tags whose quiz templates practise the right idea

    @property
    def lesson_id(self) -> str:
        return self.teach.partition(":")[0]

    @property
    def step_id(self) -> str:
        return self.teach.partition(":")[2]


def _load() -> dict[str, Misconception]:
    data = tomllib.loads(CATALOGUE_PATH.read_text(encoding="utf-8"))
    return {key: Misconception(key, dict(entry["name"]), dict(entry["explain"]), entry["teach"],
                               tuple(entry["concepts"])) for key, entry in data.items()}


CATALOGUE: dict[str, Misconception] = _load()


@dataclass(frozen=True)
class Match:
    id: str
    believed: Plain   # the answer the misconception gives (what the learner typed, at full precision)


_CACHE: dict[tuple, dict[str, list[Plain]] | None] = {}
_CACHE_LOCK = threading.Lock()


def step_ids(step) -> tuple[str, ...]:
    """The misconceptions a predict step may name: the catalogue's, less those it switches off."""
    return tuple(key for key in CATALOGUE if key not in step.misconceptions_off)


def _key(source: str, expression: str, ids: tuple[str, ...], extra: tuple) -> tuple:
    return source, expression, tuple(ids), tuple((buggy.misconception, buggy.answer) for buggy in extra)


def known(source: str, expression: str, ids: tuple[str, ...] = tuple(CATALOGUE), extra: tuple = ()) -> bool:
    """Whether `believed` has these answers already (it returns at once, without the worker)."""
    with _CACHE_LOCK:
        return _key(source, expression, ids, extra) in _CACHE


def believed(source: str, expression: str, ids: tuple[str, ...] = tuple(CATALOGUE),
             extra: tuple = ()) -> dict[str, list[Plain]] | None:
    """{id: the answers a learner holding it gives} for `expression` after `source` (None when the worker could
    not run it); `extra`, an author's `BuggyAnswer`s. Run once per program and expression: the app asks again
    on every wrong answer. (One sandbox job: the app calls it off its UI thread, `StepView._diagnose_later`.)"""
    key = _key(source, expression, ids, extra)
    pairs = key[3]
    with _CACHE_LOCK:
        if key in _CACHE:
            return _CACHE[key]
    from engine.sandbox.client import believed_answers

    raw = believed_answers(source, expression, list(ids), list(pairs))
    result = None if raw is None else {i: _plains(raw.get(i, [])) for i in ids}
    with _CACHE_LOCK:
        _CACHE[key] = result
    return result


def _plains(values: list) -> list[Plain]:
    plains = []
    for value in values:
        try:
            plains.append(classify(value))
        except UnsupportedValue:
            continue
    return plains


def distinct(answer: Answer, answers: dict[str, list[Plain]]) -> dict[str, list[Plain]]:
    """Each misconception's answers that differ from the correct one (at the step's tolerance)."""
    tolerance = answer.tolerance
    found = {}
    for key, plains in answers.items():
        kept = [p for p in plains if p.kind in ("tensor", "number")
                and not same(answer.plain, p, tolerance.rtol, tolerance.atol)[0]]
        if kept:
            found[key] = kept
    return found


def telling_apart(answer: Answer, answers: dict[str, list[Plain]]) -> tuple[str, ...]:
    """The misconceptions this step can name: one of their answers differs from the correct one and from
    every answer of every other misconception."""
    wrong = distinct(answer, answers)
    tolerance = answer.tolerance
    told = []
    for key, plains in wrong.items():
        others = [p for other, ps in wrong.items() if other != key for p in ps]
        if any(not any(same(p, q, tolerance.rtol, tolerance.atol)[0] for q in others) for p in plains):
            told.append(key)
    return tuple(told)


def diagnose(answer: Answer, answers: dict[str, list[Plain]], value, half_unit=None, decimals=None) -> Match | None:
    """The one misconception whose answer the learner typed (`value`, read at `half_unit`/`decimals` as the
    grading reads it), or None: when none matches, or several do (their answers coincide at that precision)."""
    if compare(answer, value, half_unit, decimals).correct:
        return None
    matches = []
    for key, plains in distinct(answer, answers).items():
        for plain in plains:
            believed_answer = Answer(plain.kind, plain.value, plain.shape, answer.tolerance)
            verdict = compare(believed_answer, value, half_unit, decimals)
            if verdict.correct or verdict.close:
                matches.append(Match(key, plain))
                break
    if len(matches) != 1 or not _finite(matches[0].believed):
        return None
    return matches[0]


def _finite(plain: Plain) -> bool:
    return bool(np.isfinite(np.asarray(plain.value, dtype=np.float64)).all())


@dataclass(frozen=True)
class StepTelling:
    """What `check --misconceptions` says about one predict step (`tutor.commands.check` words it, EN or JA)."""

    index: int
    step_id: str
    told: tuple[str, ...]                  # the misconceptions its wrong answers name
    answer_kind: str = ""                  # set when its answer is of a kind that is not diagnosed
    no_worker: bool = False                # the snippet worker could not run the buggy rules
    same_as_correct: tuple[str, ...] = ()  # misconceptions whose answer is the correct one on this program
    coinciding: tuple[str, ...] = ()       # misconceptions whose wrong answer another one gives too

    @property
    def enough(self) -> bool:
        return len(self.told) >= 2


def telling_report(lesson, builder=None) -> list[StepTelling]:
    """Per predict step of `lesson`, the misconceptions a wrong answer to it can name, and why not more."""
    from lessons.answers import AnswerError, compute_answer
    from lessons.model import PredictStep
    from lessons.programs import ProgramBuilder

    builder = builder or ProgramBuilder(lesson)
    found = []
    for index, step in enumerate(lesson.steps):
        if not isinstance(step, PredictStep):
            continue
        try:
            answer = compute_answer(lesson, step, builder)
        except AnswerError:
            continue  # `check` reports the broken step itself
        if answer.kind not in ("tensor", "number", "none"):
            found.append(StepTelling(index, step.id, (), answer_kind=answer.kind))
            continue
        answers = believed(answer.run.source, step.expression, step_ids(step), step.buggy)
        if answers is None:
            found.append(StepTelling(index, step.id, (), no_worker=True))
            continue
        told = telling_apart(answer, answers)
        wrong = distinct(answer, answers)
        found.append(StepTelling(index, step.id, told,
                                 same_as_correct=tuple(key for key in answers if key and key not in wrong),
                                 coinciding=tuple(key for key in wrong if key not in told)))
    return found
