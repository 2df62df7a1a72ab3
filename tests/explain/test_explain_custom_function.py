"""A custom autograd.Function in an explained program: its Jacobian comes from the learner's backward, one
cotangent row at a time (code written for a gradient of the output's shape), is checked by finite
differences through the learner's forward, and has no symbolic form (said so, in both languages)."""
import numpy as np
import pytest

from engine.explain import explain_program, explain_symbolic
from engine.explain.messages import t

# backward is right only for a cotangent of the output's shape: a batch of rows summed at once would be wrong
SPREAD = """import torch

class Spread(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sum() * torch.ones(3)

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return grad_output.sum() * torch.ones_like(x)

x = torch.tensor([1., 2., 3.], requires_grad=True)
y = Spread.apply(x) * torch.tensor([1., 2., 3.])
y.backward(torch.tensor([1., 0., -1.]))
"""


def test_jacobian_of_a_custom_function_is_its_backward_row_by_row():
    call = explain_program(SPREAD).calls[0]
    leaf = call.leaves[0]
    np.testing.assert_allclose(leaf.jacobian, [[1, 1, 1], [2, 2, 2], [3, 3, 3]])
    assert leaf.vjp_matches and leaf.fd_agrees
    np.testing.assert_allclose(leaf.grad_after, [-2, -2, -2])


def test_the_jacobian_matches_pytorch():
    torch = pytest.importorskip("torch")
    namespace: dict = {}
    exec(SPREAD.replace("y.backward", "# "), namespace)  # noqa: S102 - the test's own program, on real torch
    spread = namespace["Spread"]
    expected = torch.autograd.functional.jacobian(lambda x: spread.apply(x) * torch.tensor([1., 2., 3.]),
                                                  torch.tensor([1., 2., 3.]))
    np.testing.assert_allclose(explain_program(SPREAD).calls[0].leaves[0].jacobian, expected.numpy())


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_no_symbolic_form_and_it_says_why(lang):
    symbolic = explain_symbolic(explain_program(SPREAD), 0)
    assert not symbolic.ok and symbolic.note_key == "limit_custom"
    assert "SpreadBackward" in t(symbolic.note_key, lang, **symbolic.note_params)
