"""A gradient whose expansion would run past three lines at 80 columns is written in segments at the
program's named intermediates (∂loss/∂y, ∂loss/∂var, ∂loss/∂d, …, each using those above it), every
segment checked against the gradient backward delivered there — here also against real PyTorch's
retained gradients."""
import numpy as np
import pytest
from rich.console import Console

from engine.explain import explain_program, explain_symbolic
from engine.explain.render import render_chain

pytest.importorskip("torch")

LAYER_NORM = """import torch
x = torch.tensor([[1., 2., 4.], [0., -1., 3.]], requires_grad=True)
mu = x.mean(1, keepdim=True)
d = x - mu
var = (d ** 2).mean(1, keepdim=True)
y = d / (var + 1e-5).sqrt()
loss = (y * torch.tensor([1., 2., 3.])).sum()
loss.backward()
"""


def test_a_long_gradient_is_written_in_segments_each_checked():
    call = explain_program(LAYER_NORM).calls[0]
    symbolic = explain_symbolic(call, timeout=60)   # the product's 2 s budget is for an idle machine
    chain = symbolic.chains[0]
    assert chain.verified
    assert [lhs for lhs, _ in chain.segments] == ["∂loss/∂y", "∂loss/∂var", "∂loss/∂d", "∂loss/∂mu", "∂loss/∂x"]
    last = chain.segments[-1][1]
    assert "∂loss/∂d" in last and "∂loss/∂mu" in last and "sqrt" not in last   # short: in terms of the above
    console = Console(width=80, record=True, file=open("/dev/null", "w"))
    console.print(render_chain(call, symbolic))
    lines = console.export_text().splitlines()
    assert lines[0].startswith("in segments, from the output down")
    assert max(sum(1 for line in lines if line.startswith(lhs)) for lhs, _ in chain.segments) == 1
    assert len(lines) <= 14                                                   # it was 9+ lines of expansion


def test_every_segment_is_the_gradient_pytorch_delivers_there():
    """The segments' left sides are the very gradients PyTorch computes at those tensors (retain_grad), and
    the engine's check compares each formula with its own sweep at three points; here the arriving
    gradients themselves are compared with PyTorch's, so a segment cannot stand for another tensor."""
    from engine.explain.chain import nearby

    namespace: dict = {}
    exec(LAYER_NORM.replace("loss.backward()", "for t in (y, var, d, mu):\n    t.retain_grad()\nloss.backward()"),
         namespace)
    call = explain_program(LAYER_NORM).calls[0]
    point = nearby(call)[0]          # the call's own values
    for node in call.nodes:
        name = call.names.node(node)
        if name in ("y", "var", "d", "mu"):
            assert np.allclose(np.broadcast_to(point.arrived[node], namespace[name].shape),
                               namespace[name].grad.numpy(), rtol=1e-5, atol=1e-6), name
