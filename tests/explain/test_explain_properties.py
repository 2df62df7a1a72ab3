"""Random programs: the symbolic Jacobian at the recorded values equals the numeric one, vᵀJ equals
the gradient backward produced, and central differences agree."""
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.explain import explain_program, explain_symbolic

UNARY = ["{a}.exp()", "{a}.sin()", "{a}.tanh()", "{a}.sigmoid()", "({a} * {a})", "({a} + 1.5)",
         "({a} * c)", "{a}.pow(2)", "({a} / 4)", "(2 - {a})", "({a} * w)", "{a}.cos()"]
REDUCE = ["{a}.sum()", "{a}.mean()", "{a}.sum(dim=0)", "{a}.softmax(dim=-1)", "({a} @ m)"]
SHAPES = [(2,), (3,), (2, 3)]


@st.composite
def programs(draw):
    shape = draw(st.sampled_from(SHAPES))
    values = draw(st.lists(st.integers(-2, 2), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    x = np.array(values, dtype=float).reshape(shape) / 2
    expr = "x"
    for op in draw(st.lists(st.sampled_from(UNARY), min_size=1, max_size=2)):
        expr = op.format(a=expr)
    if draw(st.booleans()):
        expr = draw(st.sampled_from(REDUCE)).format(a=expr)
    source = (f"import torch\nx = torch.tensor({x.tolist()}, requires_grad=True)\n"
              f"c = torch.tensor(0.5)\nw = torch.tensor({(x * 0 + 1.5).tolist()})\n"
              f"m = torch.ones({shape[-1]}, 2)\ny = {expr}\n")
    return source


def _backward(source: str, seed: int) -> str:
    return (source + "v = torch.ones_like(y) if y.dim() == 0 else "
            f"torch.arange(y.numel()).reshape(y.shape).float() * {seed % 3 - 1} + 1\ny.backward(v)\n")


@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.integers(0, 5))
def test_symbolic_numeric_vjp_and_fd_agree(source, seed):
    exp = explain_program(_backward(source, seed))
    assert exp.ok, (exp.error, source)
    call = exp.calls[0]
    leaf = call.leaves[0]
    assert leaf.vjp_matches, source
    assert leaf.fd_agrees, (source, leaf.fd_max_difference)
    s = explain_symbolic(exp, 0, timeout=10)
    assert s.ok, (s.note, source)
    np.testing.assert_allclose(s.leaves[0].substituted, leaf.jacobian, rtol=1e-4, atol=1e-5, err_msg=source)
    v = call.seed.reshape(-1).astype(float)
    np.testing.assert_allclose(v @ s.leaves[0].substituted, leaf.contribution.reshape(-1), rtol=1e-4, atol=1e-5)
