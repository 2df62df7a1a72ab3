"""How a formula reads on one line: a number before a plain name loses its `*` (6x², as the articles write),
never before a dotted name or a call on a name, which would read as one name (4torch.ones, 2layer.bias₁)."""
import pytest

from engine.explain.notation import one_line


@pytest.mark.parametrize("formula, shown", [
    ("6*x**2", "6x²"), ("2*(inp + 1)", "2(inp + 1)"), ("3*x₁", "3x₁"),
    ("4*torch.ones(1, 1)", "4·torch.ones(1, 1)"),          # 100 detach-one-path
    ("2*layer.bias₁ + x₁", "2·layer.bias₁ + x₁"),           # 090 bias-grad, Jacobian tab
    ("4*l2.weight₁₁*x₁₁", "4·l2.weight₁₁·x₁₁"),             # 100 detach-one-path
    ("2*x.sum(1, keepdim=True)", "2·x.sum(1, keepdim=True)"),  # 050 two-paths
])
def test_a_number_is_joined_only_to_a_plain_name(formula, shown):
    assert one_line(formula) == shown
