"""The wide corpus (`wide_corpus.py`: every misconception applied by hand, with real PyTorch, to every bundled
numeric predict step, typed four ways) is never diagnosed WRONG, mostly diagnosed right, and random wrong
answers to the same steps are never diagnosed. `benchmarks/diagnosis.py` prints the same figures in full."""
from __future__ import annotations

import functools

import numpy as np
import pytest
from wide_corpus import learner_answers, numeric_steps, random_answers, typings

from tutor.answer_input import AnswerFormatError
from tutor.grading import grade_prediction


@functools.cache
def _steps():
    return numeric_steps()


def _lessons():
    from lessons.course import load_course

    return [lesson.id for lesson in load_course((), user_dir=None).lessons]


def _graded(step, answer, text):
    try:
        return grade_prediction(step, answer, text)
    except AnswerFormatError:
        return None, None


@pytest.mark.parametrize("lesson_id", _lessons())
def test_no_wrong_diagnosis_and_no_random_one(lesson_id):
    steps = [(lesson, step, answer) for lesson, step, answer in _steps() if lesson.id == lesson_id]
    wrong, random_named, right, total = [], [], 0, 0
    for lesson, step, answer in steps:
        believed = learner_answers(answer.run.source, step.expression)
        for key, variant, value in believed:
            for typing, text in typings(value).items():
                _, diagnosis = _graded(step, answer, text)
                total += 1
                right += diagnosis is not None and diagnosis.id == key
                if diagnosis is not None and diagnosis.id != key:
                    wrong.append((step.id, key, variant, typing, text, diagnosis.id))
        if answer.value is None:
            continue
        for value in random_answers(answer.value, seed=len(step.id)):
            if any(np.shape(v) == np.shape(value) and np.allclose(v, value, atol=1e-4) for _, _, v in believed):
                continue  # (a near miss that *is* a misconception's answer)
            verdict, diagnosis = _graded(step, answer, repr(np.asarray(value).tolist()))
            if verdict is not None and not verdict.correct and diagnosis is not None:
                random_named.append((step.id, value.tolist(), diagnosis.id))
    assert wrong == []
    assert random_named == []
    assert total == 0 or right / total >= 0.5, (right, total)
