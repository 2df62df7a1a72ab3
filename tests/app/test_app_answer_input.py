"""Reading typed answers: literals, printouts, fractions, formulas through a runner, errors."""
import numpy as np
import pytest

from tutor.answer_input import AnswerFormatError, parse_answer, parse_cell, read_answer
from tutor.i18n import STRINGS, default_language, t


def test_nested_list_with_fractions():
    value = parse_answer("[[4, 2/3], [-1/2, 1e-1]]", "tensor", (2, 2))
    np.testing.assert_allclose(value, [[4, 2 / 3], [-0.5, 0.1]])


def test_pasted_printout_with_suffixes():
    text = "tensor([[1.1667, 1.3333, 1.5000],\n        [1.6667, 1.8333, 2.0000]], requires_grad=True)"
    value = parse_answer(text, "tensor", (2, 3))
    assert value.shape == (2, 3)
    assert value[1, 2] == pytest.approx(2.0)
    assert parse_answer("tensor(3., grad_fn=<MulBackward0>)", "number") == 3.0
    np.testing.assert_allclose(parse_answer("tensor([4., 2.], dtype=torch.float64)", "tensor", (2,)), [4, 2])


def test_number_fraction_and_special_values():
    assert parse_answer(" 7/6 ", "number") == pytest.approx(7 / 6)
    assert parse_answer("-(1/2)**2", "number") == pytest.approx(-0.25)
    assert parse_answer("inf", "number") == np.inf


def test_wrong_shape_names_expected_shape():
    with pytest.raises(AnswerFormatError) as info:
        parse_answer("[[1, 2, 3], [4, 5, 6]]", "tensor", (3, 3))
    assert info.value.key == "answer_wrong_shape"
    assert "(3, 3)" in str(info.value) and "(2, 3)" in str(info.value)
    with pytest.raises(AnswerFormatError) as info:  # the transposed shape says so (tests/app/test_app_answer_probes.py)
        parse_answer("[[1, 2, 3], [4, 5, 6]]", "tensor", (3, 2))
    assert info.value.key == "answer_transposed" and "(3, 2)" in str(info.value)
    with pytest.raises(AnswerFormatError, match=r"\(2,\)"):
        parse_answer("[1, 2]", "number")


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("", "answer_empty"),
        ("[[1, 2], [3]]", "answer_ragged"),
        ("[1, 2", "answer_unclosed"),
        ("[1, 2]]", "answer_unmatched"),
        ("[1, 2,, 3]", "answer_syntax"),
        ("x^2", "answer_caret"),
        ("9" * 400, "answer_too_large"),
        ("1" * 5000, "answer_too_large"),
        ("tensor([1., ..., 3.])", "answer_abbreviated"),
        ("[True, None]", "answer_not_numbers"),
        ("True", "answer_expected_numbers"),  # (None is a prediction, graded: tests/answers)
        ("1/0", "answer_division_by_zero"),
        ("x + 1", "answer_unreadable"),  # a formula, but no runner to evaluate it
        ("2**1000", "answer_too_large"),
    ],
)
def test_malformed_answers_name_the_problem(text, key):
    with pytest.raises(AnswerFormatError) as info:
        parse_answer(text, "tensor", (2,))
    assert info.value.key == key
    assert info.value.message("ja") != info.value.message("en")


class FakeFailure(Exception):
    def __init__(self, type_, message):
        self.error = type("E", (), {"type": type_, "message": message})()


def fake_evaluate(expression):
    """Stands in for RunResult.evaluate: x = [1, 2], y = [[1, 2], [3, 4]]."""
    namespace = {"x": np.array([1.0, 2.0]), "y": np.array([[1.0, 2.0], [3.0, 4.0]])}
    try:
        return eval(expression, {}, namespace)  # test double only; the app uses the runner
    except NameError as exc:
        raise FakeFailure("NameError", str(exc)) from None


def test_formula_is_evaluated_by_the_runner():
    np.testing.assert_allclose(parse_answer("x**2/2", "tensor", (2,), fake_evaluate), [0.5, 2.0])
    np.testing.assert_allclose(parse_answer("y/6", "tensor", (2, 2), fake_evaluate), [[1 / 6, 1 / 3], [0.5, 2 / 3]])
    with pytest.raises(AnswerFormatError, match="NameError"):
        parse_answer("z * 2", "tensor", (2,), fake_evaluate)
    with pytest.raises(AnswerFormatError, match=r"\(2, 2\)"):
        parse_answer("x", "tensor", (2, 2), fake_evaluate)


@pytest.mark.parametrize("formula", ["x.grad", "x.grad * 1", "x.zero_()", "y.backward()"])
def test_formula_may_not_read_gradients(formula):
    with pytest.raises(AnswerFormatError) as info:
        parse_answer(formula, "tensor", (2,), fake_evaluate)
    assert info.value.key == "answer_formula_forbidden"


def test_bool_none_and_text_kinds():
    assert parse_answer("true", "bool") is True
    assert parse_answer("False", "bool") is False
    with pytest.raises(AnswerFormatError):
        parse_answer("1", "bool")
    assert parse_answer("None", "none") is None
    assert parse_answer("[0., 0.]", "none").shape == (2,)
    assert parse_answer(" <MulBackward0> ", "text") == "MulBackward0"
    from lessons.answers import Answer, compare
    from lessons.model import Tolerance

    name = Answer("text", "MulBackward0", None, Tolerance())
    assert compare(name, "mulbackward0").correct and compare(name, "<MulBackward0>").correct
    assert not compare(name, "AddBackward0").correct


def test_full_width_and_look_alike_characters_are_read_as_ascii():
    assert parse_answer("７／６", "number") == pytest.approx(7 / 6)
    np.testing.assert_allclose(parse_answer("［１，　−２］", "tensor", (2,)), [1, -2])
    assert parse_cell("３．５") == 3.5


def test_formula_with_an_unknown_name_lists_the_snippets_names():
    from tutor.answer_input import defined_names

    names = defined_names("import torch\nx = torch.ones(2)\nfor i in range(2):\n    y = x * i\n")
    assert names == ["i", "torch", "x", "y"]
    with pytest.raises(AnswerFormatError) as info:
        parse_answer("z * 2", "tensor", (2,), fake_evaluate, names)
    assert info.value.key == "answer_unknown_name" and "i, torch, x, y" in str(info.value)


def test_typed_precision():
    from tutor.answer_input import read_answer, read_cell

    reading = read_answer("tensor([0.0900, 1.0000e-05, 2., 7/6])", "tensor", (4,))
    np.testing.assert_allclose(reading.half_unit, [5e-5, 5e-10, 0.5, 0])
    assert reading.decimals.tolist() == [4, 4, 0, -1]
    assert read_cell("-0.1667")[1:] == (pytest.approx(5e-5), 4)
    assert read_cell("3")[1:] == (0.0, -1)


def test_cells():
    assert parse_cell(" -7/6 ") == pytest.approx(-7 / 6)
    for bad, key in [("", "answer_empty_cell"), ("abc", "answer_cell_not_number"), ("[1]", "answer_cell_not_number")]:
        with pytest.raises(AnswerFormatError) as info:
            parse_cell(bad)
        assert info.value.key == key


def test_i18n_tables_agree_and_locale_default():
    assert set(STRINGS["ja"]) == {key for key in STRINGS["en"] if not key.endswith("_one")}
    assert t("wrong_cells", "en", count=1, total=6) == "1 of 6 cells is wrong (marked)."
    assert t("wrong_cells", "en", count=2, total=6) == "2 of 6 cells are wrong (marked)."
    assert t("due_days", "en", n=1) == "in 1 day" and t("due_days", "ja", n=1) == "1 日後"
    assert t("stats_overall", "en", attempts=1, accuracy="100%") == "1 attempt, 100% correct"
    assert t("steps_count", "ja", count=1) == "1 ステップ"
    assert t("step_of", "ja", index=1, total=3) == "ステップ 1 / 3"
    assert t("missing-key", "ja") == "missing-key"
    assert default_language({"LANG": "ja_JP.UTF-8"}) == "ja"
    assert default_language({"LC_ALL": "C.UTF-8", "LANG": "ja_JP.UTF-8"}) == "en"
    assert default_language({}) == "en"


def test_a_parameter_printout_is_read_as_its_tensor():
    text = "Parameter containing:\ntensor([[ 0.5000, -1.0000],\n        [ 2.0000,  0.2500]], requires_grad=True)"
    np.testing.assert_allclose(parse_answer(text, "tensor", (2, 2)), [[0.5, -1], [2, 0.25]])
    np.testing.assert_allclose(parse_answer("Parameter containing:\ntensor([1.], requires_grad=True)", "tensor", (1,)), [1])


def test_a_parameter_printout_is_what_pytorch_prints():
    torch = pytest.importorskip("torch")
    parameter = torch.nn.Parameter(torch.tensor([[0.5, -1.0], [2.0, 0.25]]))
    np.testing.assert_allclose(parse_answer(str(parameter), "tensor", (2, 2)), [[0.5, -1], [2, 0.25]])


def test_a_huge_paste_is_refused_before_it_is_read():
    with pytest.raises(AnswerFormatError) as info:
        parse_answer(" " * 200_000 + "1", "number")
    assert info.value.key == "answer_too_long"


def test_a_long_answer_is_read_at_once():
    """A pasted answer near the length limit (2,500 numbers) is read in a fraction of a second, its precision per
    number kept (each number's text was once found by splitting the whole answer again: 20 s for this one)."""
    import time

    values = np.round(np.random.default_rng(0).random(2500), 4) + 1
    text = "[" + ", ".join(f"{value:.4f}" for value in values) + "]"
    assert len(text) > 19_000
    start = time.perf_counter()
    reading = read_answer(text, "tensor", (2500,))
    assert time.perf_counter() - start < 2
    np.testing.assert_allclose(reading.value, values)
    assert (reading.decimals == 4).all() and np.allclose(reading.half_unit, 5e-5)
    with pytest.raises(AnswerFormatError) as info:
        read_answer(text, "tensor", (2,))
    assert info.value.key == "answer_wrong_shape"


def test_a_numpy_printout_is_read_as_its_array():
    """`print(x.grad.numpy())` puts no commas between numbers; its repr is `array(...)`. Only numbers and brackets
    are read so: a formula keeps its spaces (`[a - b]` is one element, never two)."""
    np.testing.assert_allclose(parse_answer("[[ 2. -1.]\n [ 0.5  4.]]", "tensor", (2, 2)), [[2, -1], [0.5, 4]])
    np.testing.assert_allclose(parse_answer("[1e-05 2.5e+00 nan]", "tensor", (3,)), [1e-5, 2.5, np.nan])
    np.testing.assert_allclose(parse_answer("array([[2., 4.], [6., 8.]], dtype=float32)", "tensor", (2, 2)),
                               [[2, 4], [6, 8]])
    printed = str(np.array([[0.25, -1.5], [3.0, 1e-4]]))
    np.testing.assert_allclose(parse_answer(printed, "tensor", (2, 2)), [[0.25, -1.5], [3.0, 1e-4]])
    np.testing.assert_allclose(parse_answer("[x - 1]", "tensor", (1,), evaluate=lambda source: eval(source, {"x": 3})),
                               [2])


@pytest.mark.parametrize("text", [
    "[[1.1666667461395264, 1.3333333730697632, 1.5], [1.6666667461395264, 1.8333333730697632, 2.0]]",
    "[" + "1" * 5000 + ",",                      # one long number, then what makes the printout reading fail
    "[[" + " ".join(["12345678901234567890"] * 300) + "]],",
])
def test_reading_is_never_slow_whatever_is_typed(text):
    """A printout-like text that is no numpy printout (commas, a long number) is told apart at once: the
    numpy-printout pattern once backtracked exponentially over the digits of long numbers (2.6 s for the
    first answer above, minutes for a pasted one)."""
    import time

    from tutor.answer_input import AnswerFormatError, read_answer

    started = time.perf_counter()
    try:
        read_answer(text, "tensor", (2, 3))
    except AnswerFormatError:
        pass
    assert time.perf_counter() - started < 0.5
