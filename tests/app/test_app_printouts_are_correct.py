"""Grading accepts what a learner reads: the printout of every bundled predict step's answer, and of
200 generated quiz questions, typed as shown (4 decimals), is "correct" — never "close" or "wrong"."""
import numpy as np
import pytest

from lessons.answers import compare, compute_answer
from lessons.course import load_course
from tutor.answer_input import read_answer
from tutor.formatting import format_value

BUNDLED = load_course(user_dir=None).lessons


def typed_printout(answer) -> str:
    """What the learner sees printed for the answer: PyTorch's tensor printout, a number, a name."""
    if answer.kind == "tensor":
        from engine.printing import format_tensor

        return format_tensor(np.asarray(answer.value))
    return format_value(answer.kind, answer.value)  # numbers with up to 4 decimals, as the app writes them


def verdict_of(answer, text):
    reading = read_answer(text, answer.kind, answer.shape)
    return compare(answer, reading.value, reading.half_unit, reading.decimals)


@pytest.mark.parametrize("lesson", BUNDLED, ids=[lesson.id for lesson in BUNDLED])
def test_every_bundled_printout_is_correct(lesson):
    checked = 0
    for step in lesson.steps:
        if step.kind != "predict":
            continue
        answer = compute_answer(lesson, step)
        text = typed_printout(answer)
        verdict = verdict_of(answer, text)
        assert verdict.correct, f"{lesson.id}/{step.id}: {text!r} -> {verdict}"
        if answer.kind == "text":  # PyTorch's names, typed in any case
            assert verdict_of(answer, text.lower()).correct
        checked += 1
    assert checked


def test_200_generated_quiz_questions_accept_their_printouts():
    from tutor.quiz import builtin_templates, generate

    templates = builtin_templates()
    checked = 0
    for seed in range(200):
        template = templates[seed % len(templates)]
        question = generate(template, seed)
        answer = question.answer
        if question.kind != "predict":
            continue
        text = typed_printout(answer)
        verdict = verdict_of(answer, text)
        assert verdict.correct, f"{question.id}: {text!r} -> {verdict}"
        checked += 1
    assert checked >= 150


def test_fewer_decimals_than_printed_are_close_not_wrong():
    from lessons.answers import Answer
    from lessons.model import Tolerance

    answer = Answer("tensor", np.array([0.09003057, 0.24472847, 0.66524096]), (3,), Tolerance())
    assert verdict_of(answer, "[0.0900, 0.2447, 0.6652]").correct
    close = verdict_of(answer, "[0.09, 0.245, 0.665]")
    assert not close.correct and close.close
    wrong = verdict_of(answer, "[0.0900, 0.2447, 0.6600]")
    assert not wrong.correct and not wrong.close and wrong.cells.tolist() == [True, True, False]
