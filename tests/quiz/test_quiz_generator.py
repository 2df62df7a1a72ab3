"""Generated quiz questions: valid on the runner, right by finite differences and PyTorch, never degenerate."""
from __future__ import annotations

import ast

import numpy as np
import pytest

import engine
from lessons.answers import compare
from tutor.quiz import builtin_templates, generate
from tutor.quiz.generator import ERROR_CHOICES
from tutor.quiz.program import Program

SEEDS_PER_TEMPLATE = 200  # 10 templates -> 2000 variants
TEMPLATES = {template.id: template for template in builtin_templates()}
PREDICT = [tid for tid, t in TEMPLATES.items() if t.source.kind == "predict"]


def finite_differences(program: Program, h: float = 1e-6) -> np.ndarray:
    """Central differences of Σ⟨gradient, output⟩ with respect to the target leaf, in float64.

    The forward-only objective runs directly on the engine (tests only; the app goes through the runner).
    """
    source = program.objective_snippet(given=(program.target,)).replace("import torch\n", "", 1)
    code = compile(source, f"<objective of {program.target}>", "exec")
    x = program.leaf(program.target).astype(np.float64)
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        values = []
        for sign in (1, -1):
            moved = x.copy()
            moved[index] += sign * h
            namespace = {"torch": engine, program.target: engine.tensor(moved, dtype=engine.float64)}
            exec(code, namespace)  # noqa: S102 - our own generated code
            assert namespace["objective"].dtype == engine.float64
            values.append(namespace["objective"].item())
        grad[index] = (values[0] - values[1]) / (2 * h)
    return grad


@pytest.mark.parametrize("template_id", PREDICT)
def test_predict_variants_agree_with_finite_differences(template_id: str) -> None:
    torch = _real_torch()
    shapes = set()
    for seed in range(SEEDS_PER_TEMPLATE):
        question = generate(TEMPLATES[template_id], seed)
        answer = np.asarray(question.answer.value, dtype=np.float64)
        where = f"{question.id}:\n{question.step.snippet}"
        assert question.answer.kind == "tensor", where
        assert np.all(np.isfinite(answer)) and np.abs(answer).max() > 1e-3, where
        expected = finite_differences(question.program)
        np.testing.assert_allclose(answer, expected, rtol=1e-3, atol=1e-4, err_msg=where)
        assert compare(question.answer, expected).correct, where
        if torch is not None:
            namespace = {}
            exec(question.step.snippet, namespace)  # noqa: S102 - real PyTorch on our own generated code
            reference = namespace[question.program.target].grad.double().numpy()
            np.testing.assert_allclose(answer, reference, rtol=1e-4, atol=1e-5, err_msg=where)
        shapes.add(answer.shape)
    assert len(shapes) >= 2  # fresh shapes, not only fresh values


def test_error_variants_cover_every_outcome_and_match_pytorch() -> None:
    torch = _real_torch()
    seen = set()
    for seed in range(SEEDS_PER_TEMPLATE):
        question = generate(TEMPLATES["backward-errors"], seed)
        correct = ERROR_CHOICES[question.answer.value].error
        seen.add(correct)
        if torch is not None:
            try:
                exec(question.step.snippet, {})  # noqa: S102
                raised = "none"
            except RuntimeError as error:
                raised = f"RuntimeError: {error}"
            assert raised.startswith(correct), f"{question.id}: engine {correct!r}, torch {raised!r}"
    assert seen == {choice.error for choice in ERROR_CHOICES}


def doubled_call_parentheses(snippet: str) -> list[str]:
    """Calls written `f((a * b))`: the argument's own parentheses repeat the call's (ast positions leave out
    redundant parentheses, so the call's text is longer than its parts)."""
    tree = ast.parse(snippet)
    doubled = []
    for call in (node for node in ast.walk(tree) if isinstance(node, ast.Call) and len(node.args) == 1):
        whole = ast.get_source_segment(snippet, call)
        parts = f"{ast.get_source_segment(snippet, call.func)}({ast.get_source_segment(snippet, call.args[0])})"
        if not call.keywords and whole != parts:
            doubled.append(whole)
    return doubled


@pytest.mark.parametrize("template_id", sorted(TEMPLATES))
def test_generated_code_reads_as_a_person_writes_it(template_id: str) -> None:
    for seed in range(SEEDS_PER_TEMPLATE):
        snippet = generate(TEMPLATES[template_id], seed).step.snippet
        assert not doubled_call_parentheses(snippet), snippet


def test_same_seed_same_question_and_different_seeds_differ() -> None:
    template = TEMPLATES["composition"]
    first, again = generate(template, 42), generate(template, 42)
    assert first.step.snippet == again.step.snippet and first.id == again.id == "composition#42"
    assert len({generate(template, seed).step.snippet for seed in range(20)}) == 20


def test_question_is_a_one_step_lesson_the_app_can_show() -> None:
    question = generate(TEMPLATES["matmul"], 3)
    assert question.lesson.steps == (question.step,)
    assert question.step.expression == f"{question.program.target}.grad"
    assert question.step.text.en == f"Predict `{question.program.target}.grad`."
    assert question.step.text.ja and question.step.hints


def _real_torch():
    try:
        import torch
    except ImportError:
        return None
    return torch
