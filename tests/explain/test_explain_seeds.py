"""The seed articles' examples, explained: the numbers and formulas the articles derive by hand."""
import numpy as np
import pytest
import sympy

from engine.explain import explain_program, explain_symbolic

SMALL = """
import torch
inp = torch.tensor([1, 0], dtype=torch.float, requires_grad=True)
out = (inp+1).pow(2)
out.backward(torch.tensor([1, 1]))
"""

EYE = """
import torch
inp = torch.eye(5, requires_grad=True)
out = (inp+1).pow(2)
out.backward(torch.ones_like(inp), retain_graph=True)
out.backward(torch.ones_like(inp))
"""

CHAIN = """
import torch
x = torch.randn(3,3, requires_grad=True)
g = 2*(x**3)
z = g.sum()/12
z.backward()
"""

MEAN = """
import torch
tensor1 = torch.Tensor([[1,2,3], [4,5,6]])
tensor2 = torch.Tensor([[7,8,9], [10,11,12]])
tensor1.requires_grad_()
output_tensor = (tensor1 * tensor2).mean()
output_tensor.backward()
"""


def sym(name):
    return sympy.Symbol(name, real=True)


def test_small_jacobian_is_diag_2_x_plus_1_and_v_J_is_4_2():
    exp = explain_program(SMALL)
    assert exp.ok and len(exp.calls) == 1
    call = exp.calls[0]
    leaf = call.leaves[0]
    assert leaf.name == "inp" and leaf.structure["kind"] == "diagonal"
    np.testing.assert_allclose(leaf.jacobian, [[4, 0], [0, 2]])
    np.testing.assert_allclose(leaf.vjp, [4, 2])
    assert leaf.vjp_matches and leaf.fd_agrees
    s = explain_symbolic(exp, 0)
    assert s.ok, s.note
    J = s.leaves[0].jacobian
    x1 = sym("inp₁")
    assert sympy.simplify(J[0, 0] - 2 * (x1 + 1)) == 0 and J[0, 1] == 0 and J[1, 0] == 0
    assert str(J[1, 1]) == "2*(inp₂ + 1)"  # factored, as the article writes it
    assert [str(e) for e in s.leaves[0].vjp] == ["2*(inp₁ + 1)", "2*(inp₂ + 1)"]
    np.testing.assert_allclose(s.leaves[0].substituted, leaf.jacobian)


def test_eye5_jacobian_is_25x25_diagonal_4_on_ones_and_accumulates():
    exp = explain_program(EYE)
    first, second = exp.calls
    leaf = first.leaves[0]
    assert leaf.jacobian.shape == (25, 25) and leaf.structure["kind"] == "diagonal"
    expected = np.where(np.eye(5) == 1, 4.0, 2.0).reshape(-1)
    np.testing.assert_allclose(np.diag(leaf.jacobian), expected)
    assert np.count_nonzero(leaf.jacobian) == 25
    np.testing.assert_allclose(leaf.vjp, expected.reshape(5, 5))
    assert not leaf.accumulated
    again = second.leaves[0]
    assert again.accumulated and again.vjp_matches
    np.testing.assert_allclose(again.grad_before, expected.reshape(5, 5))
    np.testing.assert_allclose(again.grad_after, 2 * expected.reshape(5, 5))
    s = explain_symbolic(exp, 1)
    assert s.ok, s.note
    diag = np.diag(s.leaves[0].jacobian)
    assert str(diag[0]) == "2*(inp₁₁ + 1)" and str(diag[24]) == "2*(inp₅₅ + 1)"


def test_chain_rule_of_the_autograd_article():
    exp = explain_program(CHAIN)
    call = exp.calls[0]
    assert [g.name for g in call.graph] == ["DivBackward0", "SumBackward0", "MulBackward0", "PowBackward0",
                                           "AccumulateGrad"]
    x = call.leaves[0].value
    np.testing.assert_allclose(call.leaves[0].contribution, x ** 2 / 2, rtol=1e-5)
    s = explain_symbolic(exp, 0)
    chain = s.chains[0]
    assert chain.ok, chain.note
    assert [(seg.top, seg.bottom, seg.factor) for seg in chain.paths[0].segments] == [
        ("z", "g", "1/12"), ("g", "x", "6*x**2")]
    assert chain.total == "x**2/2"
    assert chain.text() == "∂z/∂x = ∂z/∂g · ∂g/∂x = 1/12 · 6*x**2 = x**2/2"
    assert str(s.leaves[0].jacobian[0, 4]) == "x₂₂**2/2"


def test_mean_of_product_gives_tensor2_over_6():
    exp = explain_program(MEAN)
    leaf = exp.calls[0].leaves[0]
    np.testing.assert_allclose(leaf.vjp, np.array([[7, 8, 9], [10, 11, 12]]) / 6, rtol=1e-6)
    s = explain_symbolic(exp, 0)
    assert [str(e) for e in s.leaves[0].jacobian[0]] == [f"tensor2{i}/6" for i in
                                                          ("₁₁", "₁₂", "₁₃", "₂₁", "₂₂", "₂₃")]
    assert s.chains[0].total == "tensor2/6"


def test_graph_names_saved_tensors_and_leaves():
    call = explain_program(CHAIN).calls[0]
    by_name = {g.name: g for g in call.graph}
    assert by_name["MulBackward0"].tensor == "g" and by_name["MulBackward0"].kind == "intermediate"
    assert by_name["DivBackward0"].kind == "output" and by_name["DivBackward0"].tensor == "z"
    assert by_name["AccumulateGrad"].kind == "leaf" and by_name["AccumulateGrad"].tensor == "x"
    assert by_name["PowBackward0"].saved == ["self = x (3x3)"]


def test_trace_visits_nodes_in_backward_order_and_sums_at_a_shared_tensor():
    exp = explain_program("""
import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = x * x.exp()
y.sum().backward()
""")
    call = exp.calls[0]
    names = [step.name for step in call.trace]
    assert names == ["SumBackward0", "MulBackward0", "ExpBackward0", "AccumulateGrad"]
    leaf_step = call.trace[-1]
    assert len(leaf_step.summed) == 2  # x feeds MulBackward0 directly and through ExpBackward0
    np.testing.assert_allclose(sum(g for _, g in leaf_step.summed), leaf_step.incoming)
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(leaf_step.incoming, (1 + x) * np.exp(x), rtol=1e-5)
    s = explain_symbolic(exp, 0)
    assert sympy.simplify(sympy.sympify(s.chains[0].total, locals={"x": sym("x")})
                          - (sym("x") + 1) * sympy.exp(sym("x"))) == 0


def test_learner_grads_untouched_by_explaining():
    exp = explain_program("""
import torch
x = torch.tensor([1., 2.], requires_grad=True)
h = x * 3
h.retain_grad()
h.sum().backward()
""")
    call = exp.calls[0]
    explain_symbolic(exp, 0)
    leaf = call.leaves[0]
    np.testing.assert_allclose(leaf.grad_after, [3, 3])
    # the replayed sweeps ran on copies: the retained h.grad still holds the single call's value
    np.testing.assert_allclose(exp.run.namespace["h"].grad.numpy(), [1, 1])


SAVED_CASES = {  # PyTorch saves an input only for another input's gradient that is needed; a result always
    "mul, w without grad": ("x * w", False),
    "mul, both with grad": ("x * w", True),
    "div, w without grad": ("x / w", False),
    "div, both with grad": ("x / w", True),
    "pow, w without grad": ("x ** w", False),
    "pow, both with grad": ("x ** w", True),
    "pow of a number": ("x ** 2", False),
    "a number to a power": ("2 ** x", False),
    "matmul, w without grad": ("x.reshape(1, 2) @ w.reshape(2, 1)", False),
    **{op: (f"x.{op}()", False) for op in ("exp", "tanh", "sigmoid", "sqrt", "reciprocal", "relu", "sin", "log",
                                           "prod", "norm", "std", "var", "max")},
    **{op: (f"x.{op}(0)", False) for op in ("softmax", "log_softmax", "cumprod", "logsumexp")},
}


@pytest.mark.parametrize("case", SAVED_CASES, ids=list(SAVED_CASES))
def test_the_graph_says_saved_what_pytorch_saved(case):
    """The graph panel's "saved:" line names the tensors PyTorch 2.13 itself saved (`grad_fn._saved_<name>` a
    tensor, not None): an input only when another input's gradient needs it, the result whenever the op saves it."""
    torch = pytest.importorskip("torch")
    expression, w_grad = SAVED_CASES[case]
    source = (f"import torch\nx = torch.tensor([1.5, 2.0], requires_grad=True)\n"
              f"w = torch.tensor([3.0, 0.5], requires_grad={w_grad})\ny = {expression}\ny.sum().backward()\n")
    x = torch.tensor([1.5, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 0.5], requires_grad=w_grad)
    node = eval(expression, {"x": x, "w": w}).grad_fn  # noqa: S307 - the test's own expressions
    expected = {name[len("_saved_"):] for name in dir(node)
                if name.startswith("_saved_") and isinstance(getattr(node, name), torch.Tensor)}
    graph = explain_program(source).calls[0].graph
    entry = next(g for g in graph if g.name == type(node).__name__)
    assert {item[0] for item in entry.saved_items} == expected, (entry.saved, expected)
