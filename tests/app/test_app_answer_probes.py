"""Odd input in every answer field gets the right verdict or a message that names the fix, in English and
Japanese: spaces, commas, full-width digits and brackets, the minus sign, nan/inf, exponents, printouts,
a scalar printout, a transposed matrix, empty and huge input, bools typed for numbers."""
import numpy as np
import pytest

from tutor.answer_input import MAX_LENGTH, AnswerFormatError, read_answer, read_cell


@pytest.mark.parametrize(("typed", "value"), [
    (" [ 1 , -2 ] ", [1, -2]), ("1, -2", [1, -2]), ("[1,-2,]", [1, -2]), ("［１，－２］", [1, -2]),
    ("[１．５, −２]", [1.5, -2]), ("[1、-2]", [1, -2]), ("[1,\u00a0-2]", [1, -2]), ("[½, -2]", [0.5, -2]),
    ("[1e-5, -2E0]", [1e-5, -2]), ("tensor([ 1., -2.], requires_grad=True)", [1, -2]),
    ("tensor([1.0000e-05, -2.0000e+00])", [1e-5, -2]), ("array([ 1., -2.])", [1, -2]), ("[ 1. -2.]", [1, -2]),
    ("(1, -2)", [1, -2]), ("[1/1, -4/2]", [1, -2]), ("1 -2", [1, -2]),
])
def test_a_vector_typed_any_usual_way_is_read(typed, value):
    np.testing.assert_array_equal(read_answer(typed, "tensor", (2,)).value, value)


def test_nan_and_infinities_are_numbers():
    np.testing.assert_array_equal(read_answer("[nan, -inf]", "tensor", (2,)).value, [np.nan, -np.inf])
    assert read_answer("inf", "number").value == np.inf


@pytest.mark.parametrize("typed", ["tensor(3.)", "3", "3.0000", "tensor(3., grad_fn=<SumBackward0>)", "[3.]"[1:-1]])
def test_a_scalar_printout_is_a_number(typed):
    assert read_answer(typed, "number").value == 3.0
    assert read_answer(typed, "tensor", ()).value == 3.0


def test_a_matrix_and_its_transpose():
    assert read_answer("[[1,2],[3,4]]", "tensor", (2, 2)).value.tolist() == [[1, 2], [3, 4]]
    assert read_answer("[[1,3],[2,4]]", "tensor", (2, 2)).value.tolist() == [[1, 3], [2, 4]]  # read, then graded
    with pytest.raises(AnswerFormatError) as info:
        read_answer("[[1, 2], [3, 4], [5, 6]]", "tensor", (2, 3))
    assert info.value.key == "answer_transposed" and "(2, 3)" in info.value.message("ja")


@pytest.mark.parametrize(("typed", "kind", "key"), [
    ("", "tensor", "answer_empty"), ("   \n ", "number", "answer_empty"),
    ("1" * 100_000, "tensor", "answer_too_long"), ("[" + "1, " * (MAX_LENGTH // 3) + "1]", "tensor", "answer_too_long"),
    ("True", "tensor", "answer_expected_numbers"), ("true", "number", "answer_expected_numbers"),
    ("null", "tensor", "answer_expected_numbers"), ("1 2", "number", "answer_needs_brackets"),
    ("1 -2", "number", "answer_needs_brackets"), ("[1, 2", "tensor", "answer_unclosed"),
    ("[1j, 2]", "tensor", "answer_not_numbers"), ("x^2", "number", "answer_caret"),
    ("1", "bool", "answer_expected_bool"), ("yes", "bool", "answer_expected_bool"),
    ("[1, 1, 1][1, 1, 1]", "tensor", "answer_missing_comma"), ("[[1, 2] [3, 4]]", "tensor", "answer_missing_comma"),
    ("(1, 2)(3, 4)", "tensor", "answer_missing_comma"),
])
def test_slips_get_a_message_naming_the_fix_in_both_languages(typed, kind, key):
    with pytest.raises(AnswerFormatError) as info:
        read_answer(typed, kind, (2,) if kind == "tensor" else None)
    assert info.value.key == key
    english, japanese = info.value.message("en"), info.value.message("ja")
    assert english and japanese and english != japanese


@pytest.mark.parametrize(("typed", "value"), [("True", True), ("true", True), ("FALSE", False), (" False ", False)])
def test_a_bool_in_any_case(typed, value):
    assert read_answer(typed, "bool").value is value


@pytest.mark.parametrize("typed", ["None", "none", "NONE"])
def test_none_in_any_case(typed):
    assert read_answer(typed, "none").value is None


@pytest.mark.parametrize(("typed", "value"), [("１．５", 1.5), ("−1", -1), ("-inf", -np.inf), ("1e-5", 1e-5),
                                              (" 7/6 ", 7 / 6), ("½", 0.5), ("\x1b[1m2\x1b[0m", 2)])
def test_a_grid_cell_typed_any_usual_way(typed, value):
    assert read_cell(typed)[0] == pytest.approx(value)


@pytest.mark.parametrize(("typed", "key"), [("", "answer_empty_cell"), ("True", "answer_cell_not_number"),
                                            ("1,5", "answer_cell_not_number")])
def test_a_grid_cell_slip_names_the_fix(typed, key):
    with pytest.raises(AnswerFormatError) as info:
        read_cell(typed)
    assert info.value.key == key and info.value.message("en") != info.value.message("ja")
