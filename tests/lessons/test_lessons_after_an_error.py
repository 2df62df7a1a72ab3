"""A step that continues after an error step must give what a learner typing along in PyTorch gets.

The tutor replays an error step's program only up to the statement that raised (lessons.programs), but in
PyTorch that statement has already run: `torch.autograd.grad(y, [x, w])` with an unused `w` runs the backward
pass, frees y's graph and only then raises, so a later `grad` on the same y fails. This test runs such a
continuation in real PyTorch the way a learner would (the raising statement executed and caught, the rest of
that cell skipped) and compares it with the answer the tutor shows.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from lessons.answers import AnswerError, compute_answer
from lessons.loader import parse_lesson
from lessons.model import ErrorStep, Lesson, PredictStep, Step

torch = pytest.importorskip("torch")

BUNDLED = Path(__file__).resolve().parents[2] / "lessons" / "bundled"

# lesson 130's old allow-unused step: it continued on the y whose graph the failed call had freed
FREED_BY_THE_FAILED_CALL = '''\
format_version = 1
id = "after-error"
title = "T"
summary = "S"
concepts = ["autograd-grad"]

[[steps]]
id = "unused"
kind = "error"
text = "What happens?"
snippet = """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
w = torch.tensor([5., 7.], requires_grad=True)
y = (x ** 3).sum()
gx, gw = torch.autograd.grad(y, [x, w])
"""
[[steps.choices]]
error = "RuntimeError: The differentiated Tensor at index 1 appears to not have been used in the graph"
[[steps.choices]]
error = "none"

[[steps]]
id = "allowed"
kind = "predict"
continues = true
text = "Predict gx."
snippet = """
gx, gw = torch.autograd.grad(y, [x, w], allow_unused=True)
"""
expression = "gx"
'''


def continuations(lesson: Lesson) -> list[Step]:
    """The predict steps whose program reaches back through an error step."""
    found, after_error, previous = [], False, None
    for step in lesson.steps:
        after_error = step.continues and (after_error or isinstance(previous, ErrorStep))
        if after_error and isinstance(step, PredictStep):
            found.append(step)
        previous = step
    return found


def as_typed_along(lesson: Lesson, step: PredictStep):
    """`step`'s expression in real PyTorch, each earlier snippet of its chain run as a learner would: a cell
    that raises stops at the raising statement, which has run."""
    index = lesson.step_index(step)
    start = index
    while lesson.steps[start].continues:
        start -= 1
    namespace: dict = {}
    for earlier in lesson.steps[start:index + 1]:
        if not earlier.snippet:
            continue
        for statement in ast.parse(earlier.snippet).body:
            code = compile(ast.Module([statement], type_ignores=[]), earlier.id, "exec")
            try:
                exec(code, namespace)
            except Exception:
                if earlier is step or not isinstance(earlier, ErrorStep):
                    raise
                break
    return eval(step.expression, namespace)


def agrees(lesson: Lesson, step: PredictStep) -> bool:
    shown = compute_answer(lesson, step).value
    try:
        real = as_typed_along(lesson, step)
    except Exception:
        return False
    try:
        return torch.allclose(torch.as_tensor(real, dtype=torch.float64), torch.as_tensor(shown, dtype=torch.float64),
                              rtol=1e-4, atol=1e-6, equal_nan=True)
    except (TypeError, ValueError, RuntimeError):  # None, a string, a tuple of flags…
        return real == shown


def test_a_continuation_after_a_failed_call_fails_as_it_does_in_pytorch():
    """The tutor replays the raising statement too (its error caught), so the failed call has freed the graph
    in the tutor as in PyTorch: the step fails, and `check` tells the author, instead of showing [3., 12.]."""
    lesson, _ = parse_lesson(FREED_BY_THE_FAILED_CALL, "after-error.toml")
    (step,) = continuations(lesson)
    with pytest.raises(AnswerError, match="backward through the graph a second time"):
        compute_answer(lesson, step)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        as_typed_along(lesson, step)


def test_the_statements_before_the_raising_one_on_its_line_have_run():
    """`a = 1; gx, gw = grad(…)` on one line: `a` is bound, as in a notebook cell that raised there."""
    lesson, _ = parse_lesson(FREED_BY_THE_FAILED_CALL.replace("gx, gw = torch.autograd.grad(y, [x, w])\n",
                                                               "a = 2.; gx, gw = torch.autograd.grad(y, [x, w])\n")
                             .replace('expression = "gx"', 'expression = "x * a"')
                             .replace("allow_unused=True)", "allow_unused=True) if False else (None, None)"),
                             "after-error.toml")
    (step,) = continuations(lesson)
    assert compute_answer(lesson, step).value.tolist() == [2., 4.]
    assert as_typed_along(lesson, step).tolist() == [2., 4.]


@pytest.mark.parametrize("path", sorted(BUNDLED.glob("*.toml")), ids=lambda path: path.stem[:3])
def test_bundled_continuations_after_an_error_agree_with_pytorch(path):
    lesson, _ = parse_lesson(path.read_text(encoding="utf-8"), path.name)
    for step in continuations(lesson):
        assert agrees(lesson, step), (lesson.id, step.id)
