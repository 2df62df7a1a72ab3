"""Forward mode is explained as forward mode: the two backward sweeps the engine uses for a jvp (the
double-vjp trick) are shown as the one J·t they compute, with the tangent the program gave, and checked
against real PyTorch, against what the call returned and against the function replayed along t."""
import numpy as np
import pytest
from rich.console import Console

from engine.explain import explain_program
from engine.explain.render import render_call, render_summary, render_vjp

pytest.importorskip("torch")  # the reference: each program is also run by real PyTorch

SINGLE = """import torch
from torch.func import jvp
x = torch.tensor([1., 2., 3.])
t = torch.tensor([1., 0., 0.5])
y, jt = jvp(torch.sin, (x,), (t,))
"""

TWO_INPUTS = """import torch
from torch.autograd.functional import jvp
def f(a, b):
    return a * b.exp() + a.sum() * b
a = torch.tensor([1., 2.])
b = torch.tensor([0.5, -1.])
out, jt = jvp(f, (a, b), (torch.tensor([1., 0.]), torch.tensor([0., 2.])))
"""


def text(renderable, width: int = 80) -> str:
    console = Console(width=width, record=True, file=open("/dev/null", "w"))
    console.print(renderable)
    return " ".join(console.export_text().replace("│", " ").split())   # the text, wherever panels wrap it


def torch_result(source: str) -> np.ndarray:
    namespace: dict = {}
    exec(source, namespace)   # the program itself, in real PyTorch
    return namespace["jt"].detach().numpy()


@pytest.mark.parametrize("source", [SINGLE, TWO_INPUTS], ids=["func.jvp", "functional.jvp two inputs"])
def test_a_jvp_is_one_forward_mode_call_equal_to_pytorchs(source):
    explanation = explain_program(source)
    assert len(explanation.calls) == 1                # not the two sweeps that computed it
    call = explanation.calls[0]
    forward = call.forward
    assert forward is not None and forward.matches and forward.fd_agrees
    expected = torch_result(source)
    assert np.allclose(forward.computed, expected, rtol=1e-5, atol=1e-6)
    assert np.allclose(forward.finite_differences, expected, rtol=1e-4, atol=1e-5)
    # the tangent shown for each input is the one the program gave that input, matched by identity
    given = {"x": [1., 0., .5]} if source is SINGLE else {"a": [1., 0.], "b": [0., 2.]}
    assert {leaf.name: t.tolist() for leaf, t in zip(call.leaves, forward.tangents)} == given


def test_the_panels_say_t_and_jt_never_a_zero_v():
    call = explain_program(SINGLE).calls[0]
    summary = text(render_summary(call))
    assert "forward-mode call 1 (line 5)" in summary and "t is the tangent given to torch.func.jvp" in summary
    assert "v =" not in summary and "t = " in summary
    panel = text(render_vjp(call))
    assert "J·t for x: the Jacobian times the column vector t" in panel
    assert "✓ J·t equals the tangent torch.func.jvp returned for torch.sin(x)" in panel
    ja = "".join(text(render_vjp(call, lang="ja")).split())   # Japanese wraps anywhere: compared without spaces
    assert "（順モード）" in ja and "✓J·tはtorch.func.jvpが" in ja
    whole = text(render_call(call))
    assert "Jacobian-vector product (JVP)" in whole and "forward mode has no backward to follow" in whole
    assert "0ᵀ" not in whole                          # the zero cotangent of the first sweep never shows


def test_a_backward_after_a_jvp_is_still_its_own_call():
    source = SINGLE + "w = torch.ones(3, requires_grad=True)\n(w * 2).sum().backward()\n"
    calls = explain_program(source).calls
    assert [call.forward is not None for call in calls] == [True, False]
    assert calls[1].api == "Tensor.backward" and calls[1].leaves[0].vjp_matches
