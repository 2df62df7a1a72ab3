"""The buggy rules run through the engine's own mechanism (`engine.explain.beliefs`), checked against real
PyTorch doing by hand what each misconception believes."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import state
from engine.explain.beliefs import IDS, RULES, believed_answers
from engine.runner import run_snippet
from lessons.misconceptions import CATALOGUE


def answers(source: str, expression: str) -> dict:
    return believed_answers("import torch\n" + source, expression, run_snippet=run_snippet)


def test_every_catalogued_misconception_has_a_buggy_rule_and_a_teaching_step():
    from lessons.course import load_course

    assert set(IDS) == set(CATALOGUE) and len(CATALOGUE) >= 14
    lessons = {lesson.id: lesson for lesson in load_course((), user_dir=None).lessons}
    for entry in CATALOGUE.values():
        assert entry.name["en"] and entry.name["ja"] and entry.explain["en"] and entry.explain["ja"]
        assert lessons[entry.lesson_id].step(entry.step_id).kind == "predict", entry.teach


def test_jacobian_times_v_needs_a_square_jacobian_and_is_vT_J_transposed():
    src = ("x = torch.tensor([2., 3.], requires_grad=True)\n"
           "y = torch.stack([x[0] * x[1], x[0] ** 2])\n"
           "y.backward(torch.tensor([1., 10.]))\n")
    x = torch.tensor([2., 3.])
    jac = torch.autograd.functional.jacobian(lambda x: torch.stack([x[0] * x[1], x[0] ** 2]), x)
    v = torch.tensor([1., 10.])
    found = answers(src, "x.grad")
    np.testing.assert_allclose(found[""][0], (v @ jac).numpy())
    np.testing.assert_allclose(found["jacobian-times-v"][0], (jac @ v).numpy())
    # a 2x3 input into 2 outputs: J is not square, J·v means nothing
    assert answers("x = torch.ones(2, 3, requires_grad=True)\nx.sum(1).backward(torch.ones(2))\n",
                   "x.grad")["jacobian-times-v"] == []


def test_matmul_without_transpose_and_softmax_diagonal_against_torch():
    src = ("X = torch.tensor([[1., 2.], [3., 4.]])\nW = torch.tensor([[0., 1.], [2., 3.]], requires_grad=True)\n"
           "(X @ W).sum().backward()\n")
    X, G = torch.tensor([[1., 2.], [3., 4.]]), torch.ones(2, 2)
    found = answers(src, "W.grad")
    np.testing.assert_allclose(found[""][0], (X.T @ G).numpy())
    assert any(np.allclose(a, (X @ G).numpy()) for a in found["matmul-no-transpose"])
    src = "z = torch.tensor([1., 2., 3.], requires_grad=True)\ntorch.softmax(z, 0).backward(torch.tensor([1., 0., 2.]))\n"
    s = torch.softmax(torch.tensor([1., 2., 3.]), 0)
    np.testing.assert_allclose(answers(src, "z.grad")["softmax-diagonal-only"][0],
                               (torch.tensor([1., 0., 2.]) * s * (1 - s)).numpy(), rtol=1e-6)


def test_grad_replaced_and_zero_grad_zeros():
    src = ("w = torch.tensor([1., 2.], requires_grad=True)\nopt = torch.optim.SGD([w], lr=0.1)\n"
           "(w * w).sum().backward()\n(3 * w).sum().backward()\n")
    found = answers(src, "w.grad")
    np.testing.assert_allclose(found[""][0], [5., 7.])
    np.testing.assert_allclose(found["grad-replaced"][0], [3., 3.])
    found = answers(src + "opt.zero_grad()\n", "w.grad")
    assert found[""] == [None] and np.array_equal(found["zero-grad-zeros"][0], [0., 0.])


def test_a_belief_holds_for_its_run_only():
    src = "x = torch.tensor([1., 2.], requires_grad=True)\nx.mean().backward()\n"
    assert answers(src, "x.grad")["mean-without-n"][0].tolist() == [1., 1.]
    assert state.current().belief is None
    result = run_snippet("import torch\n" + src)
    assert result.evaluate("x.grad").tolist() == [0.5, 0.5]


@pytest.mark.parametrize("key", sorted(RULES))
def test_a_program_without_the_op_gives_the_correct_answer(key):
    """A belief changes only what it is about: on x·3 summed every buggy rule gives PyTorch's answer."""
    found = answers("x = torch.tensor([1., 2.], requires_grad=True)\n(x * 3).sum().backward()\n", "x.grad")
    for value in found[key]:
        np.testing.assert_allclose(value, [3., 3.])


def test_the_authoring_guide_documents_every_misconception_in_both_languages():
    from pathlib import Path

    guide = (Path(__file__).parents[2] / "docs" / "authoring.md").read_text(encoding="utf-8")
    english, japanese = guide.split("# 日本語: autograd-tutor のレッスンを書く")
    for entry in CATALOGUE.values():
        assert f"| `{entry.id}` | {entry.name['en']} | `{entry.teach}` |" in english
        assert f"| `{entry.id}` | {entry.name['ja']} | `{entry.teach}` |" in japanese
    assert "misconceptions_off" in english and "[[steps.buggy]]" in japanese


_entries = st.integers(-3, 3).map(float)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 3), data=st.data())
def test_for_any_square_linear_map_jacobian_times_v_is_A_v_and_no_transpose_is_X_ones(n, data):
    """Properties over random programs, against PyTorch: y = A @ x with backward(v) gives Aᵀv, and J·v is A v;
    (X @ W).sum() gives W.grad = Xᵀ·1, and without the transpose X·1."""
    a = data.draw(st.lists(st.lists(_entries, min_size=n, max_size=n), min_size=n, max_size=n))
    v = data.draw(st.lists(_entries, min_size=n, max_size=n))
    src = (f"A = torch.tensor({a})\nx = torch.ones({n}, requires_grad=True)\n"
           f"(A @ x).backward(torch.tensor({v}))\n")
    found = answers(src, "x.grad")
    A, V = torch.tensor(a), torch.tensor(v)
    x = torch.ones(n, requires_grad=True)
    (A @ x).backward(V)
    np.testing.assert_allclose(found[""][0], x.grad.numpy())
    np.testing.assert_allclose(found["jacobian-times-v"][0], (A @ V).numpy())
    src = f"X = torch.tensor({a})\nW = torch.ones({n}, {n}, requires_grad=True)\n(X @ W).sum().backward()\n"
    np.testing.assert_allclose(answers(src, "W.grad")["matmul-no-transpose"][0], (A @ torch.ones(n, n)).numpy())
