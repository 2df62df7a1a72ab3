"""Dual numbers (`torch.autograd.forward_ad`) are explained as forward mode runs them: each tangent the program
reads with `unpack_dual` is a forward-mode call whose J·t equals real PyTorch's tangent, and whose panel goes op
by op — value, tangents in, the op's rule, tangent out — each tangent checked by a finite difference."""
import numpy as np
import pytest
from rich.console import Console

from engine.explain import explain_program
from engine.explain.render import render_call, render_steps, render_summary, render_vjp

pytest.importorskip("torch")  # the reference: each program is also run by real PyTorch

HEAD = "import torch\nimport torch.autograd.forward_ad as fwAD\n"

SIN_X = HEAD + """x0 = torch.tensor([1.0, 2.0, 3.0])
t = torch.tensor([1.0, 0.5, -1.0])
with fwAD.dual_level():
    x = fwAD.make_dual(x0, t)
    y = torch.sin(x) * x
    jvp = fwAD.unpack_dual(y).tangent
"""

MATMUL = HEAD + """W = torch.tensor([[1.0, -2.0, 0.5], [0.0, 3.0, 1.0]])
v = torch.tensor([0.5, 1.0, 2.0])
with fwAD.dual_level():
    dW = fwAD.make_dual(W, torch.ones(2, 3))
    h = dW @ v
    out = torch.tanh(h)
    jvp = fwAD.unpack_dual(out).tangent
"""

TWO_INPUTS = HEAD + """a = torch.tensor([0.5, -1.0])
b = torch.tensor([2.0, 0.25])
with fwAD.dual_level():
    da = fwAD.make_dual(a, torch.tensor([1.0, 0.0]))
    db = fwAD.make_dual(b, torch.tensor([0.0, 2.0]))
    z = (da * db).exp() + da / db
    jvp = fwAD.unpack_dual(z).tangent
"""

# dual and plain tensors together; `c` holds the same numbers as x but is a constant (no tangent)
MIXED = HEAD + """x0 = torch.tensor([1.0, 2.0, 3.0])
c = torch.tensor([1.0, 2.0, 3.0])
with fwAD.dual_level():
    x = fwAD.make_dual(x0, torch.tensor([0.0, 1.0, 0.0]))
    s = x * c + c.exp()
    y = (s ** 2).sum()
    jvp = fwAD.unpack_dual(y).tangent
"""

# an in-place op moves its result's tangent onto its target
IN_PLACE = HEAD + """x0 = torch.tensor([0.5, 1.5])
with fwAD.dual_level():
    x = fwAD.make_dual(x0, torch.tensor([1.0, 1.0]))
    y = x * 2
    y.mul_(x)
    jvp = fwAD.unpack_dual(y.sin()).tangent
"""

PROGRAMS = {"sin·x": SIN_X, "matmul": MATMUL, "two inputs": TWO_INPUTS, "dual and plain": MIXED,
            "in place": IN_PLACE}


def text(renderable, width: int = 80) -> str:
    console = Console(width=width, record=True, file=open("/dev/null", "w"))
    console.print(renderable)
    return " ".join(console.export_text().replace("│", " ").split())


def torch_tangent(source: str) -> np.ndarray:
    namespace: dict = {}
    exec(source, namespace)   # the program itself, in real PyTorch
    return namespace["jvp"].numpy()


@pytest.mark.parametrize("source", PROGRAMS.values(), ids=PROGRAMS.keys())
def test_the_tangent_read_is_one_forward_mode_call_equal_to_pytorchs(source):
    explanation = explain_program(source)
    assert explanation.ok, explanation.error
    assert len(explanation.calls) == 1
    call = explanation.calls[0]
    assert call.api == "autograd.forward_ad" and call.refused is None
    forward = call.forward
    expected = torch_tangent(source)
    assert np.allclose(forward.returned, expected, rtol=1e-5, atol=1e-6)    # what the program read
    assert np.allclose(forward.computed, expected, rtol=1e-5, atol=1e-6)    # Σ J·t from the Jacobians shown
    assert forward.matches and forward.fd_agrees
    assert np.allclose(forward.finite_differences, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("source", PROGRAMS.values(), ids=PROGRAMS.keys())
def test_every_ops_tangent_equals_its_finite_difference(source):
    forward = explain_program(source).calls[0].forward
    assert forward.steps
    for step in forward.steps:
        assert step.agrees
        assert np.allclose(step.tangent, step.finite_difference, rtol=1e-3, atol=1e-4)
    assert np.array_equal(forward.steps[-1].tangent, forward.returned)   # the last op made what was read


def test_sin_x_op_by_op():
    """The numbers of each op, worked out by hand: sin's tangent is cos(x)·t, the product's (x·cos x + sin x)·t."""
    call = explain_program(SIN_X).calls[0]
    x, t = np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.5, -1.0])
    sin, mul = call.forward.steps
    assert (sin.op, mul.op) == ("sin", "mul")
    assert np.allclose(sin.value, np.sin(x)) and np.allclose(sin.tangent, np.cos(x) * t)
    assert [tangent is not None for _, tangent in mul.inputs] == [True, True]
    assert np.allclose(mul.inputs[0][1], np.cos(x) * t) and np.allclose(mul.inputs[1][1], t)
    assert np.allclose(mul.tangent, (x * np.cos(x) + np.sin(x)) * t, rtol=1e-6)
    assert [leaf.name for leaf in call.leaves] == ["x"] and call.output_name == "y"
    # the graph is forward mode's: ops as the program called them, no backward node, nothing saved for backward
    assert [(g.name, g.tensor, g.kind) for g in call.graph] == [("mul", "y", "output"), ("sin", None, "intermediate"),
                                                          ("make_dual", "x", "input")]
    assert not any(g.saved for g in call.graph)


def test_a_constant_is_a_constant_even_with_a_leafs_numbers():
    """c equals x0 elementwise but is a plain tensor: it gets no tangent and keeps its own name."""
    call = explain_program(MIXED).calls[0]
    mul = call.forward.steps[0]
    (self_edge, self_tangent), (other_edge, other_tangent) = mul.inputs
    assert self_tangent is not None and other_tangent is None
    assert "c" in other_edge.label
    assert [leaf.name for leaf in call.leaves] == ["x"]
    panel = text(render_steps(call)[0])
    assert "other = c" in panel and "a constant, no tangent" in panel


def test_the_panels_say_dual_numbers_and_j_t(tmp_path):
    call = explain_program(TWO_INPUTS).calls[0]
    summary = text(render_summary(call))
    assert "forward-mode call 1 (line 9)" in summary and "unpack_dual read z's tangent" in summary
    assert [leaf.name for leaf in call.leaves] == ["da", "db"]
    jvp = text(render_vjp(call))
    assert "✓ J·t equals the tangent unpack_dual(z) read" in jvp and "vᵀ" not in jvp
    report = text(render_call(call), width=100)
    assert "forward mode, op by op" in report and "op 1 of 4: mul" in report
    ja = text(render_call(call, lang="ja"), width=100)
    assert "順モードを演算ごとに" in ja and "接ベクトル" in ja


def test_a_tangent_from_outside_the_op_table_is_refused_in_plain_words():
    source = HEAD + """x0 = torch.tensor([1.0, 2.0])
with fwAD.dual_level():
    x = fwAD.make_dual(x0, torch.tensor([1.0, 1.0]))
    y = x * 3
    y.zero_()
    z = y + x
    jvp = fwAD.unpack_dual(z).tangent
"""
    call = explain_program(source).calls[0]
    assert call.refused == "dual_unknown" and call.forward is None
    assert "cannot be followed: not explained" in text(render_call(call), width=100)


def test_reading_the_tangent_one_gave_is_not_a_call_and_a_backward_keeps_its_place():
    source = HEAD + """x0 = torch.tensor([1.0, 2.0], requires_grad=True)
(x0 * 2).sum().backward()
with fwAD.dual_level():
    x = fwAD.make_dual(x0.detach(), torch.tensor([1.0, 0.0]))
    same = fwAD.unpack_dual(x).tangent
    y = fwAD.unpack_dual(x.exp()).tangent
(x0 ** 2).sum().backward()
"""
    calls = explain_program(source).calls
    assert [(c.api, c.line) for c in calls] == [("Tensor.backward", 4), ("autograd.forward_ad", 8),
                                                ("Tensor.backward", 9)]
    assert [c.index for c in calls] == [0, 1, 2]


def test_a_forward_mode_loop_past_what_an_explanation_keeps_is_refused(monkeypatch):
    """The steps' copies are bounded (record.TANGENT_BYTES): a read after the bound is said not explained."""
    from engine.explain import record

    monkeypatch.setattr(record, "TANGENT_BYTES", 2000)
    source = HEAD + """x0 = torch.ones(10)
with fwAD.dual_level():
    x = fwAD.make_dual(x0, torch.ones(10))
    early = fwAD.unpack_dual(x * 2).tangent
    for _ in range(50):
        x = x * 1.01
    late = fwAD.unpack_dual(x).tangent
"""
    early, late = explain_program(source).calls
    assert early.refused is None and early.forward.matches
    assert late.refused == "dual_too_long"
    assert "than an explanation keeps" in text(render_summary(late))
