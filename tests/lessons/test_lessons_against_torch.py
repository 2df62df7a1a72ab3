"""`check --against-torch`: real PyTorch agrees with the engine on the bundled course, and differences show."""
from __future__ import annotations

from pathlib import Path

import pytest

from engine.sandbox.jobs import encode_value
from lessons.against_torch import _difference
from lessons.answers import compute_answer
from lessons.loader import parse_lesson

pytest.importorskip("torch")

BUNDLED = Path(__file__).resolve().parents[2] / "lessons" / "bundled"

LESSON = '''\
format_version = 1
id = "diff"
title = "Differences"
summary = "A predict and an error step."
concepts = ["vjp"]

[[steps]]
id = "p"
kind = "predict"
text = "x.grad"
snippet = """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
(x * x).sum().backward()
"""
expression = "x.grad"

[[steps]]
id = "e"
kind = "error"
text = "What happens?"
snippet = """
import torch
x = torch.ones(2, requires_grad=True)
(x * 2).backward()
"""
[[steps.choices]]
error = "RuntimeError: grad can be implicitly created only for scalar outputs"
[[steps.choices]]
error = "none"
'''


def test_the_bundled_course_agrees_with_pytorch(cli):
    result = cli("check", "--against-torch", BUNDLED)
    assert result.exit_code == 0, result.output
    assert "lessons checked, 0 problems" in result.output.splitlines()[-1]


def test_a_different_value_or_outcome_is_reported():
    lesson, _ = parse_lesson(LESSON, "diff.toml")
    predict, error = lesson.steps
    answer = compute_answer(lesson, predict)
    assert _difference(predict, answer, {"error": None, "value": encode_value(answer.value)}) is None
    message = _difference(predict, answer, {"error": None, "value": encode_value(answer.value + [0, 1])}).en
    assert message.startswith("`x.grad`: the engine computes tensor [2., 4.]") and "PyTorch computes tensor [2., 5.]" in message
    failed = _difference(predict, answer, {"error": {"type": "TypeError", "message": "nope"}})
    assert failed.en == "PyTorch fails where the engine does not: TypeError: nope"
    assert failed.ja == "エンジンでは成功するのに PyTorch では失敗します: TypeError: nope"
    raised = compute_answer(lesson, error)
    assert _difference(error, raised, {"error": None}).en.endswith("PyTorch gives no error")
    same = {"error": {"type": "RuntimeError", "message": "grad can be implicitly created only for scalar outputs"}}
    assert _difference(error, raised, same) is None
