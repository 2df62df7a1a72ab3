"""The seed articles' examples give the numbers and errors the articles print (no PyTorch needed)."""
import numpy as np
import pytest

import engine as torch


def test_mean_of_product_gives_other_over_six():
    t1 = torch.Tensor([[1, 2, 3], [4, 5, 6]]).requires_grad_()
    t2 = torch.Tensor([[7, 8, 9], [10, 11, 12]]).requires_grad_()
    assert t1.grad is None
    (t1 * t2).mean().backward()
    assert repr(t1.grad) == "tensor([[1.1667, 1.3333, 1.5000],\n        [1.6667, 1.8333, 2.0000]])"
    np.testing.assert_allclose(t2.grad.numpy(), t1.detach().numpy() / 6, rtol=1e-6)


def test_sum_of_tensors_is_not_scalar():
    t1 = torch.Tensor([[1, 2, 3], [4, 5, 6]]).requires_grad_()
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (t1 + t1).backward()


def test_vector_jacobian_product_with_ones():
    inp = torch.tensor([1., 0.], requires_grad=True)
    out = (inp + 1).pow(2)
    out.backward(torch.tensor([1, 1]))
    assert inp.grad.tolist() == [4.0, 2.0]


def test_eye5_accumulates_then_zeroes():
    inp = torch.eye(5, requires_grad=True)
    out = (inp + 1).pow(2)
    out.backward(torch.ones_like(inp), retain_graph=True)
    expected = np.where(np.eye(5) == 1, 4.0, 2.0)
    np.testing.assert_array_equal(inp.grad.numpy(), expected)
    out.backward(torch.ones_like(inp), retain_graph=True)
    np.testing.assert_array_equal(inp.grad.numpy(), 2 * expected)
    inp.grad.zero_()
    np.testing.assert_array_equal(inp.grad.numpy(), np.zeros((5, 5)))


def test_chain_rule_gives_x_squared_over_two():
    x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    g = 2 * x ** 3
    assert repr(g).endswith("grad_fn=<MulBackward0>)")
    z = (g / 12).sum()
    z.backward()
    np.testing.assert_allclose(x.grad.numpy(), x.detach().numpy() ** 2 / 2)
    names = [z.grad_fn.name()]
    node = z.grad_fn
    while node.next_functions:
        node = node.next_functions[0][0]
        names.append(node.name())
    assert names == ["SumBackward0", "DivBackward0", "MulBackward0", "PowBackward0",
                     "torch::autograd::AccumulateGrad"]


def test_second_backward_without_retain_graph_fails():
    x = torch.tensor([1., 2.], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_batched_jacobian_matches_article_structure():
    J = torch.autograd.functional.jacobian(lambda x: (x + 1).pow(2), torch.eye(5))
    assert tuple(J.shape) == (5, 5, 5, 5)
    flat = J.numpy().reshape(25, 25)
    np.testing.assert_array_equal(flat, np.diag(np.where(np.eye(5).reshape(-1) == 1, 4.0, 2.0)))
