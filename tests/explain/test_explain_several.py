"""Several outputs differentiated at once are explained, not skipped: read as one vector (each output
flattened, one after another, v likewise), J is their Jacobians stacked and vᵀJ = v₁ᵀJ₁ + v₂ᵀJ₂ — checked
against real PyTorch, against what the call produced and by finite differences. No symbolic form is shown
for them (the symbolic replay follows one output), and every output's graph is drawn."""
import re

import numpy as np
import pytest
from rich.console import Console

from engine.explain import explain_program, explain_symbolic
from engine.explain.render import render_call

pytest.importorskip("torch")  # the reference: each program is also run by real PyTorch

PROGRAMS = {
    "autograd.backward": ("""import torch
x = torch.tensor([1., 2.], requires_grad=True)
y1 = x ** 2
y2 = (x * 3).sum()
torch.autograd.backward([y1, y2], [torch.tensor([1., 0.5]), torch.tensor(2.)])
g = x.grad
""", ["y1", "y2"]),
    "autograd.grad": ("""import torch
x = torch.tensor([0.5, -1., 2.], requires_grad=True)
w = torch.tensor([[1., 2., 0.], [0., -1., 3.]])
h = w @ x.sin()
s = (x * x).sum()
(g,) = torch.autograd.grad([h, s], [x], [torch.tensor([1., -2.]), torch.tensor(0.5)])
""", ["h", "s"]),
    "a leaf among the outputs": ("""import torch
x = torch.tensor([3., 4.], requires_grad=True)
y = x.exp()
torch.autograd.backward([y, x], [torch.tensor([1., 1.]), torch.tensor([10., 20.])])
g = x.grad
""", ["y", "x"]),
}


def text(renderable) -> str:
    console = Console(width=80, record=True, file=open("/dev/null", "w"))
    console.print(renderable)
    return " ".join(console.export_text().replace("│", " ").split())   # the text, wherever panels wrap it


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_several_outputs_are_stacked_and_equal_pytorch(name):
    source, outputs = PROGRAMS[name]
    namespace: dict = {}
    exec(source, namespace)                       # real PyTorch
    expected = namespace["g"].detach().numpy()
    call = explain_program(source).calls[0]
    assert call.several == 2 and call.output_names == outputs
    (leaf,) = call.leaves
    assert leaf.vjp_matches and leaf.fd_agrees
    assert np.allclose(leaf.vjp, expected, rtol=1e-5, atol=1e-6)
    # J is the stacked Jacobians: its rows, first output first, against PyTorch's own Jacobians
    import torch

    xs = namespace["x"].detach()
    blocks = []
    for out in outputs:
        def f(x, out=out):
            scope = {"torch": torch, "x": x, "w": namespace.get("w")}
            expression = {"y1": "x ** 2", "y2": "(x * 3).sum()", "h": "w @ x.sin()", "s": "(x * x).sum()",
                          "y": "x.exp()", "x": "x"}[out]
            return eval(expression, scope)
        blocks.append(torch.autograd.functional.jacobian(f, xs).reshape(-1, xs.numel()).numpy())
    assert np.allclose(leaf.jacobian, np.concatenate(blocks), rtol=1e-5, atol=1e-6)


def test_the_panels_say_how_several_outputs_are_read():
    source, _ = PROGRAMS["autograd.backward"]
    call = explain_program(source).calls[0]
    symbolic = explain_symbolic(call, timeout=60)
    whole = text(render_call(call, symbolic))
    assert "2 outputs were differentiated at once (y1, y2)" in whole and "v₁ᵀJ₁ + v₂ᵀJ₂" in whole
    assert "no symbolic form for several outputs at once" in whole and "✓ vᵀJ equals x.grad" in whole
    assert "PowBackward0 y1 [output" in whole and "SumBackward0 y2 [output" in whole   # both graphs
    assert "symbolically" not in whole and "✗" not in whole
    ja = text(render_call(call, symbolic, lang="ja"))
    flat = re.sub(r"[\s│]", "", ja)   # Japanese wraps anywhere: compared without spaces and borders
    assert "2個の出力（y1,y2）をまとめて微分しました" in flat and "記号形式を示しません" in flat
