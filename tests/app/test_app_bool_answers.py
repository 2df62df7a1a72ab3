"""Answers that are True/False values — a tuple of flags, a bool tensor — are read, graded and shown as bools:
the engine's answer keeps them (not 1. and 0.), a number typed for them gets a message, never a verdict."""
import numpy as np
import pytest
from textual.widgets import Input

from lessons.answers import compare, compute_answer
from lessons.course import load_course
from tutor.answer_input import AnswerFormatError, read_answer
from tutor.formatting import format_value
from tutor.grading import grade_prediction, holds_bools


@pytest.fixture
def flags(fixtures_dir):
    course = load_course([fixtures_dir / "bools"], user_dir=None, include_bundled=False)
    lesson = course.lessons[0]
    return lesson, [compute_answer(lesson, step) for step in lesson.steps]


def test_a_tuple_of_flags_and_a_bool_tensor_are_answers_of_bools(flags):
    _, (pair, mask) = flags
    for answer, expected in ((pair, [True, False]), (mask, [True, False])):
        assert answer.kind == "tensor" and answer.value.dtype == bool and holds_bools(answer)
        assert answer.value.tolist() == expected
    assert format_value(pair.kind, pair.value) == "[True, False]"  # shown as bools, not tensor([1., 0.])


@pytest.mark.parametrize("typed", ["(True, False)", "[True, False]", "True, False", "[true, FALSE]",
                                   "tensor([ True, False])", "[ True False]", "tensor([True, False], requires_grad=False)"])
def test_bools_are_read_in_every_form_a_learner_has_them(flags, typed):
    lesson, (pair, _) = flags
    verdict, _ = grade_prediction(lesson.steps[0], pair, typed)
    assert verdict.correct


def test_wrong_bools_are_wrong_cell_by_cell(flags):
    lesson, (pair, _) = flags
    verdict, diagnosis = grade_prediction(lesson.steps[0], pair, "(True, True)")
    assert not verdict.correct and verdict.cells.tolist() == [True, False] and diagnosis is None


@pytest.mark.parametrize("typed", ["[1, 0]", "[1., 0.]", "(True, 0)", "tensor([1., 0.])"])
def test_numbers_for_a_bool_answer_say_it_is_true_false_values(flags, typed):
    lesson, (pair, _) = flags
    with pytest.raises(AnswerFormatError) as info:
        grade_prediction(lesson.steps[0], pair, typed)
    assert info.value.key == "answer_not_bools"
    assert "(True, False)" in info.value.message("en") and "True/False" in info.value.message("ja")


def test_a_formula_giving_bools_is_read_and_one_giving_numbers_is_refused():
    evaluate = {"x > 0": np.array([True, False]), "x * 2": np.array([2.0, -4.0])}.__getitem__
    reading = read_answer("x > 0", "tensor", (2,), evaluate, ["x"], bools=True)
    assert reading.value.dtype == bool and reading.value.tolist() == [True, False]
    with pytest.raises(AnswerFormatError, match="True/False"):
        read_answer("x * 2", "tensor", (2,), evaluate, ["x"], bools=True)


@pytest.mark.parametrize(("typed", "key"), [("[True]", "answer_wrong_shape"), ("[[True], [False, True]]", "answer_ragged"),
                                            ("[True, None]", "answer_not_bools"), ("(True, False", "answer_unclosed")])
def test_malformed_bools_name_the_problem(typed, key):
    with pytest.raises(AnswerFormatError) as info:
        read_answer(typed, "tensor", (2,), bools=True)
    assert info.value.key == key


def test_numeric_answers_still_refuse_bools(flags):
    with pytest.raises(AnswerFormatError) as info:
        read_answer("[True, False]", "tensor", (2,))
    assert info.value.key == "answer_not_numbers"
    _, (pair, _) = flags
    assert compare(pair, np.array([True, False])).correct


@pytest.mark.parametrize("lang", ["en", "ja"])
async def test_the_step_asks_for_bools_and_grades_them_in_the_app(make_app, lang):
    app = make_app(lang=lang, folders=("bools",))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        screen = app.screen
        await pilot.pause()
        assert not screen.query("#grid")  # no grid of numbers for True/False values
        whole = screen.query_one("#whole", Input)
        assert "True" in whole.placeholder
        whole.value = "[1, 0]"
        await pilot.press("enter")
        feedback = str(screen.query_one("#feedback").render())
        assert "(True, False)" in feedback and not screen.view.state.attempted  # a message, not a verdict
        whole.value = "(True, True)"
        await pilot.press("enter")
        assert screen.view.state.verdict == "wrong"
        await pilot.press("escape", "s")
        feedback = str(screen.query_one("#feedback").render())
        assert "[True, False]" in feedback and "1." not in feedback
