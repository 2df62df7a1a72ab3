"""Authoring: a step switches misconceptions off or adds buggy answers in TOML (declared once in
lessons/spec.py, so the loader and the JSON Schema agree), and `check --misconceptions` says per predict
step which misconceptions a wrong answer can name, and why not more."""
from __future__ import annotations

import json
import textwrap

import pytest

from lessons.answers import compute_answer
from lessons.loader import load_lesson
from tutor.grading import grade_prediction

LESSON = '''\
format_version = 1
id = "authoring-misconceptions"
title = {{ en = "Column means", ja = "列の平均" }}
summary = {{ en = "Means over a dim.", ja = "dim に沿った平均です。" }}
concepts = ["reduction-dim"]

[[steps]]
id = "column-means"
kind = "predict"
text = {{ en = "Predict `x.grad`.", ja = "`x.grad` を予想してください。" }}
snippet = """
import torch
x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
x.mean(dim=0).backward(torch.tensor([1., 2., 3.]))
"""
expression = "x.grad"
{extra}
'''


def _lesson(tmp_path, extra: str, *, valid: bool = True):
    path = tmp_path / "lesson.toml"
    path.write_text(LESSON.format(extra=textwrap.dedent(extra)), encoding="utf-8")
    return path, load_lesson(path) if valid else None


def _diagnosis(lesson, text: str):
    step = lesson.steps[0]
    return grade_prediction(step, compute_answer(lesson, step), text)[1]


def test_a_step_can_switch_a_misconception_off(tmp_path):
    _, on = _lesson(tmp_path, "")
    assert _diagnosis(on, "[[1, 2, 3], [1, 2, 3]]").id == "mean-without-n"
    _, off = _lesson(tmp_path, 'misconceptions_off = ["mean-without-n"]')
    assert off.steps[0].misconceptions_off == ("mean-without-n",)
    assert _diagnosis(off, "[[1, 2, 3], [1, 2, 3]]") is None


def test_a_step_can_add_a_buggy_answer_as_an_expression_of_its_program(tmp_path):
    _, lesson = _lesson(tmp_path, '''
        [[steps.buggy]]
        misconception = "broadcast-not-summed"
        answer = "x.grad * 5"
    ''')
    assert [(b.misconception, b.answer) for b in lesson.steps[0].buggy] == [("broadcast-not-summed", "x.grad * 5")]
    assert _diagnosis(lesson, "[[2.5, 5, 7.5], [2.5, 5, 7.5]]").id == "broadcast-not-summed"


def test_an_unknown_misconception_is_a_problem_with_a_suggestion(cli, tmp_path):
    path, _ = _lesson(tmp_path, '''
        misconceptions_off = ["mean-without-m"]
        [[steps.buggy]]
        misconception = "wrong-dims"
        answer = "x.grad"
    ''', valid=False)
    result = cli("check", path)
    assert result.exit_code == 1
    assert "misconceptions_off[0]: no misconception 'mean-without-m'" in result.output
    assert "did you mean 'mean-without-n'?" in result.output and "did you mean 'wrong-dim'?" in result.output


def test_the_json_schema_knows_the_keys(tmp_path):
    from lessons.spec import SCHEMA_PATH, json_schema

    assert json.loads(SCHEMA_PATH.read_text()) == json_schema()  # regenerated: python -m lessons.spec
    predict = json.dumps(json_schema())
    assert "misconceptions_off" in predict and "buggy" in predict


def test_check_says_which_misconceptions_each_predict_step_can_name(cli, tmp_path):
    path, _ = _lesson(tmp_path, "")
    result = cli("check", "--misconceptions", path)
    assert result.exit_code == 0, result.output
    line = next(line for line in result.output.splitlines() if "column-means:" in line)
    assert "mean-without-n" in line and "wrong-dim" in line and "fewer than 2" not in line
    result = cli("check", "--misconceptions", "lessons/bundled/050-reduction-gradients.toml")
    line = next(line for line in result.output.splitlines() if "full-mean:" in line)
    assert "fewer than 2" in line and "mean-without-n, all-ones give the same wrong answer" in line


def test_grade_json_fills_the_diagnosis_and_the_text_says_it(cli):
    result = cli("grade", "trying-autograd:mean-grad", "[[7, 8, 9], [10, 11, 12]]", "--json")
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["correct"] is False and data["close"] is False
    assert data["diagnosis"]["id"] == "mean-without-n"
    assert data["diagnosis"]["message"].startswith("Every number of yours is 6× the answer")
    result = cli("grade", "trying-autograd:mean-grad", "[[7, 8, 9], [10, 11, 12]]", "--lang", "ja")
    assert result.output.splitlines()[1].startswith("あなたの答えはどの値も正解の 6 倍です。")
    data = json.loads(cli("grade", "trying-autograd:mean-grad", "[[2, 5, 1], [0, 3, 9]]", "--json").output)
    assert data == {"correct": False, "close": False, "diagnosis": None, "error": None}


def test_check_says_it_in_japanese_under_lang_ja(cli):
    result = cli("--lang", "ja", "check", "--misconceptions", "lessons/bundled/050-reduction-gradients.toml")
    assert result.exit_code == 0, result.output
    assert "予想ステップごとに、不正解の答えから特定できるつまずき" in result.output
    line = next(line for line in result.output.splitlines() if "full-mean:" in line)
    assert "（2 つ未満: " in line and "mean-without-n, all-ones は、別のつまずきと同じ不正解の答えになります" in line
    assert "fewer than" not in result.output and "give the" not in result.output


@pytest.mark.parametrize("lang, here, elsewhere", [
    ("en", "This step teaches it.", "Step “mean-grad” of “Trying autograd” teaches it."),
    ("ja", "まさにこのステップで学ぶ内容です。", "「Autograd を試す」のステップ「mean-grad」で学べます。"),
])
def test_on_the_step_that_teaches_it_the_diagnosis_says_so(cli, lang, here, elsewhere):
    on_it = cli("grade", "--lang", lang, "trying-autograd:mean-grad", "[[7, 8, 9], [10, 11, 12]]")
    assert here in on_it.output and elsewhere not in on_it.output, on_it.output
    other = cli("grade", "--lang", lang, "reduction-gradients:column-means", "[[1, 2, 3], [1, 2, 3]]")
    assert elsewhere in other.output and here not in other.output, other.output
