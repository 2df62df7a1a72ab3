"""Answers are computed by the engine through the runner: the seed articles' numbers come out."""
from __future__ import annotations

import numpy as np
import pytest

from lessons.answers import AnswerError, compare, compute_answer
from lessons.loader import parse_lesson
from lessons.programs import ProgramBuilder
from lessons.validate import validate_lesson

HEADER = '''\
format_version = 1
id = "seed"
title = "Seed examples"
summary = "The numbers of the three articles."
concepts = ["vjp"]
'''


def lesson_of(steps: str):
    lesson, problems = parse_lesson(HEADER + steps, "seed.toml")
    assert problems == []
    return lesson


def answer(lesson, step_id):
    return compute_answer(lesson, lesson.step(step_id))


ARTICLE_1 = '''
[[steps]]
id = "tensors"
kind = "predict"
text = "requires_grad?"
snippet = """
import torch
tensor1 = torch.Tensor([[1, 2, 3], [4, 5, 6]])
tensor2 = torch.Tensor([[7, 8, 9], [10, 11, 12]])
"""
expression = "tensor1.requires_grad"

[[steps]]
id = "grad-none"
kind = "predict"
continues = true
text = "grad?"
snippet = "tensor1.requires_grad_()"
expression = "tensor1.grad"

[[steps]]
id = "sum-fails"
kind = "error"
continues = true
text = "What happens?"
snippet = """
output_tensor = tensor1 + tensor2
output_tensor.backward()
"""
[[steps.choices]]
error = "none"
[[steps.choices]]
error = "RuntimeError: grad can be implicitly created only for scalar outputs"

[[steps]]
id = "mean"
kind = "predict"
continues = true
text = "Predict tensor1.grad"
snippet = """
output_tensor = (tensor1 * tensor2).mean()
output_tensor.backward()
"""
expression = "tensor1.grad"
expect = "tensor2 / 6"
'''


def test_article_1_trying_autograd():
    lesson = lesson_of(ARTICLE_1)
    assert answer(lesson, "tensors").kind == "bool" and answer(lesson, "tensors").value is False
    assert answer(lesson, "grad-none").kind == "none"
    failing = answer(lesson, "sum-fails")
    assert (failing.kind, failing.value, failing.raised.type) == ("error", 1, "RuntimeError")
    mean = answer(lesson, "mean")  # continues after the error step: its failing statement is left out
    assert mean.kind == "tensor" and mean.shape == (2, 3)
    np.testing.assert_allclose(mean.value, [[7 / 6, 8 / 6, 9 / 6], [10 / 6, 11 / 6, 12 / 6]], rtol=1e-6)
    assert validate_lesson(lesson) == []


def test_a_step_after_an_error_step_keeps_what_ran_before_the_failure():
    lesson = lesson_of(ARTICLE_1)
    program = ProgramBuilder(lesson).program(3)
    assert "output_tensor = tensor1 + tensor2" in program.source
    assert "output_tensor.backward()\noutput_tensor = (tensor1" not in program.source


ARTICLE_2 = '''
[[steps]]
id = "small"
kind = "predict"
text = "inp.grad"
snippet = """
import torch
inp = torch.tensor([1, 0], dtype=torch.float, requires_grad=True)
out = (inp+1).pow(2)
out.backward(torch.tensor([1., 1.]))
"""
expression = "inp.grad"

[[steps]]
id = "eye-first"
kind = "predict"
text = "First call"
snippet = """
import torch
inp = torch.eye(5, requires_grad=True)
out = (inp+1).pow(2)
out.backward(torch.ones_like(inp), retain_graph=True)
"""
expression = "inp.grad"

[[steps]]
id = "eye-second"
kind = "predict"
continues = true
text = "Second call"
snippet = "out.backward(torch.ones_like(inp), retain_graph=True)"
expression = "inp.grad"

[[steps]]
id = "eye-zero"
kind = "predict"
continues = true
text = "After zero_"
snippet = """
inp.grad.zero_()
out.backward(torch.ones_like(inp), retain_graph=True)
"""
expression = "inp.grad"
'''


def test_article_2_jacobian_and_accumulation():
    lesson = lesson_of(ARTICLE_2)
    np.testing.assert_array_equal(answer(lesson, "small").value, [4.0, 2.0])
    first = 2 * np.ones((5, 5)) + 2 * np.eye(5)
    np.testing.assert_array_equal(answer(lesson, "eye-first").value, first)
    np.testing.assert_array_equal(answer(lesson, "eye-second").value, 2 * first)
    np.testing.assert_array_equal(answer(lesson, "eye-zero").value, first)


ARTICLE_3 = '''
[[steps]]
id = "grad-fn"
kind = "predict"
text = "g.grad_fn"
snippet = """
import torch
x = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
g = 2*(x**3)
"""
expression = "g.grad_fn.name()"

[[steps]]
id = "chain"
kind = "predict"
continues = true
text = "x.grad"
snippet = """
z = g.sum()/12
z.backward()
"""
expression = "x.grad"
expect = "(x**2)/2"
'''


def test_article_3_chain_rule():
    lesson = lesson_of(ARTICLE_3)
    grad_fn = answer(lesson, "grad-fn")
    assert (grad_fn.kind, grad_fn.value) == ("text", "MulBackward0")
    chain = answer(lesson, "chain")
    np.testing.assert_allclose(chain.value, np.array([[0.5, -1.0], [2.0, 0.25]]) ** 2 / 2, rtol=1e-6)
    assert "x**2" not in chain.stdout and chain.run.ok
    assert validate_lesson(lesson) == []


def test_compare_judges_cell_by_cell_within_tolerance():
    chain = answer(lesson_of(ARTICLE_3), "chain")
    verdict = compare(chain, [[0.125, 0.5], [2.0, 0.03125]])
    assert verdict.correct and verdict.cells.all()
    verdict = compare(chain, [[0.125, 0.5], [2.0, 0.5]])
    assert not verdict.correct and verdict.cells.tolist() == [[True, True], [True, False]]
    assert not compare(chain, [0.125, 0.5]).correct  # wrong shape
    assert compare(chain, np.array([[0.12501, 0.5], [2.0, 0.03125]])).correct  # within rtol 1e-4
    grad_fn = answer(lesson_of(ARTICLE_3), "grad-fn")
    assert compare(grad_fn, "<MulBackward0>").correct and not compare(grad_fn, "PowBackward0").correct


def test_tolerance_follows_the_answers_scale():
    from lessons.answers import Answer
    from lessons.model import DEFAULT_TOLERANCE
    from tutor.formatting import format_cell

    tiny = Answer("tensor", np.array([1e-5, 1e-5]), (2,), DEFAULT_TOLERANCE)
    assert not compare(tiny, [0.0, 0.0]).correct  # absolute 1e-5 would have called this right
    assert compare(tiny, [1e-5, 1.00001e-5]).correct
    assert format_cell(1e-5) == "1e-05" and format_cell(-2.5e-7) == "-2.5e-07" and format_cell(0.25) == "0.25"
    ordinary = Answer("tensor", np.array([1.0, 0.0]), (2,), DEFAULT_TOLERANCE)
    assert compare(ordinary, [1.0, 4e-6]).correct  # float32 noise on a zero cell, at the answer's scale
    large = Answer("number", 5000.0, (), DEFAULT_TOLERANCE)
    assert compare(large, 5000.3).correct and not compare(large, 5001.0).correct  # never widened


def test_a_broken_step_raises_answer_error_with_its_place():
    lesson = lesson_of(ARTICLE_3.replace('expression = "x.grad"', 'expression = "x.grad.foo"'))
    with pytest.raises(AnswerError) as caught:
        answer(lesson, "chain")
    assert caught.value.step_index == 1 and caught.value.key == "expression"


def test_quiz_templates_instantiate_deterministically_and_run():
    from lessons.quiztemplate import instantiate

    lesson = lesson_of(ARTICLE_3 + '''
[[quiz]]
id = "scaled-mean"
text = "Predict `x.grad`."
snippet = """
import torch
x = torch.tensor({x}, requires_grad=True)
(x * {c}).mean().backward()
"""
expression = "x.grad"
[quiz.params]
x = { kind = "tensor", shapes = [[2, 3], [3]], low = -3, high = 3, integers = true }
c = { kind = "int", low = 2, high = 5 }
''')
    template = lesson.quiz[0]
    assert template.concepts == ("vjp",)  # defaults to the lesson's concepts
    first, again, other = instantiate(template, 7), instantiate(template, 7), instantiate(template, 8)
    assert first == again and first != other
    x, c = np.array(first.params["x"]), first.params["c"]
    assert 2 <= c <= 5 and x.shape in ((2, 3), (3,)) and np.all((x >= -3) & (x <= 3) & (x == np.round(x)))
    assert f"(x * {c}).mean()" in first.snippet
    assert validate_lesson(lesson) == []
