"""A wrong answer made by applying a misconception by hand, with real PyTorch, is diagnosed as that
misconception; random wrong answers are diagnosed as nothing (never a guess)."""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pytest
from misconception_corpus import CORPUS, typed

from lessons.answers import compute_answer
from lessons.course import load_course
from tutor.grading import grade_prediction


@dataclass(frozen=True)
class Diagnosed:
    id: str
    message: str


@functools.cache
def _course():
    return load_course((), user_dir=None)


@functools.cache
def _step(target: str):
    lesson_id, step_id = target.split(":")
    lesson = next(lesson for lesson in _course().lessons if lesson.id == lesson_id)
    step = lesson.step(step_id)
    return lesson, step, compute_answer(lesson, step)


def _diagnosed(target: str, text: str, lang: str = "en"):
    lesson, step, answer = _step(target)
    verdict, diagnosis = grade_prediction(step, answer, text, lambda lang: {lesson.id: lesson.title.get(lang)
                                                                           for lesson in _course().lessons})
    return verdict, diagnosis if diagnosis is None else Diagnosed(diagnosis.id, diagnosis.message(lang))


@pytest.mark.parametrize("target, misconception, by_hand", CORPUS, ids=[f"{t}-{m}-{f.__name__}" for t, m, f in CORPUS])
def test_a_misconception_applied_by_hand_is_named(target, misconception, by_hand):
    text = typed(by_hand())
    verdict, diagnosis = _diagnosed(target, text)
    assert not verdict.correct and not verdict.close, text
    assert diagnosis is not None and diagnosis.id == misconception, (text, diagnosis)


def test_the_corpus_covers_the_whole_catalogue():
    from lessons.misconceptions import CATALOGUE

    covered = {misconception for _, misconception, _ in CORPUS}
    assert covered == set(CATALOGUE)


RANDOM_STEPS = sorted({target for target, misconception, _ in CORPUS if misconception != "zero-grad-zeros"})


@pytest.mark.parametrize("target", RANDOM_STEPS)
def test_random_wrong_answers_get_no_diagnosis(target):
    _, _, answer = _step(target)
    rng = np.random.default_rng(abs(hash(target)) % 2**32)
    correct = np.asarray(answer.value, dtype=np.float64)
    for _ in range(6):
        noise = rng.integers(1, 9, size=correct.shape) * rng.choice([-1, 1], size=correct.shape) * 0.37
        wrong = np.round(correct + noise, 4)
        verdict, diagnosis = _diagnosed(target, repr(wrong.tolist()))
        assert not verdict.correct
        assert diagnosis is None, (wrong, diagnosis)


def test_the_message_says_it_in_the_learners_numbers_in_both_languages():
    text = "[[7, 8, 9], [10, 11, 12]]"
    _, en = _diagnosed("trying-autograd:mean-grad", text, "en")
    _, ja = _diagnosed("trying-autograd:mean-grad", text, "ja")
    assert en.message.startswith("Every number of yours is 6× the answer: that is “mean without 1/n”.")
    assert "Trying autograd" in en.message and "mean-grad" in en.message
    assert ja.message.startswith("あなたの答えはどの値も正解の 6 倍です。") and "「1/n を忘れた平均」" in ja.message
    assert "「Autograd を試す」" in ja.message
    _, ones = _diagnosed("tensor-gradient-jacobian:small-backward", "[1, 1]")
    assert ones.id == "all-ones" and "Your answer [1, 1] is exactly what" in ones.message


def test_a_right_or_close_answer_is_never_diagnosed():
    _, _, answer = _step("trying-autograd:mean-grad")
    right = repr(np.round(np.asarray(answer.value, dtype=np.float64), 4).tolist())
    verdict, diagnosis = _diagnosed("trying-autograd:mean-grad", right)
    assert verdict.correct and diagnosis is None
    verdict, diagnosis = _diagnosed("trying-autograd:mean-grad", "[[1.2, 1.3, 1.5], [1.7, 1.8, 2]]")
    assert verdict.close and diagnosis is None


def test_a_random_tensor_for_a_none_answer_is_not_diagnosed():
    verdict, diagnosis = _diagnosed("training-loop:grad-after-zero-grad", "[0.5, -3]")
    assert not verdict.correct and diagnosis is None
    verdict, diagnosis = _diagnosed("training-loop:grad-after-zero-grad", "None")
    assert verdict.correct and diagnosis is None


def test_answers_that_several_misconceptions_give_are_not_diagnosed():
    # a full mean without its 1/n *is* all ones: two beliefs, one answer, so no name
    verdict, diagnosis = _diagnosed("reduction-gradients:full-mean", "[[1, 1, 1], [1, 1, 1]]")
    assert not verdict.correct and diagnosis is None
