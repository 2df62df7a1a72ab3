"""Node names and graph shape exactly PyTorch's: each program's graph, walked through `next_functions` from the
result, gives the same node names in the same order as PyTorch 2.13 (batched and folded matmul, mixed indexing),
with the same values and gradients."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import engine

SHAPES = {"A": (2, 3, 4), "B": (2, 4, 5), "C": (4, 5), "D": (1, 4, 5), "E": (3, 2, 3, 4), "F": (1, 3, 4),
          "v": (4,), "u": (5,), "x": (3, 4), "M": (3, 4), "G": (2, 2, 3, 4)}
NO_GRAD = {"M"}  # a constant operand: whether the other needs a gradient changes PyTorch's graph
PROGRAMS = [
    "A @ B", "A @ C", "C.t() @ A.transpose(1, 2).transpose(1, 2).transpose(1, 2)", "A @ v", "v @ B", "A @ D",
    "E @ B", "F @ B", "D.transpose(1, 2) @ A.transpose(1, 2)", "F @ C", "F @ D", "M @ B", "x @ B",
    "A.transpose(1, 2).transpose(1, 2) @ C.detach()", "torch.matmul(G, D)", "A.bmm(B)", "A @ B.detach()",
    "(A * 2) @ (B + 1)", "v @ C", "x @ v", "v @ v", "x @ C", "A.matmul(C.t().t())",
    "x[0, [1, 1, 2]]", "x[[0, 1], 1]", "x[:, [0, 2]]", "x[1:, [0, 2]]", "x[[0, 1]][:, 1]", "x[..., [0]]",
    "x[x > 0]", "x[None, 0, [1]]", "A[0, :, [1, 2]]", "A[:, 1, [0, 3]]", "A[[0, 1], :, 0]", "A[..., 0, [1, 2]]",
    "A[A > 0]", "A[0][[2, 0]]", "E[1, ..., [0, 2]]", "A[:, None, [1]]",
]


def _chain(node, names: list) -> list:
    if node is None:
        names.append(None)
        return names
    names.append(type(node).__name__)
    for parent, _ in node.next_functions:
        _chain(parent, names)
    return names


def _run(lib, code: str):
    rng = np.random.default_rng(1)
    env = {"torch": lib}
    for name, shape in SHAPES.items():
        env[name] = lib.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=name not in NO_GRAD)
    out = eval(code, env)
    return env, out


@pytest.mark.parametrize("code", PROGRAMS)
def test_graph_is_pytorchs(code):
    (ours, out), (theirs, expected) = _run(engine, code), _run(torch, code)
    assert tuple(out.shape) == tuple(expected.shape)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert _chain(out.grad_fn, []) == _chain(expected.grad_fn, []), code
    cotangent = np.random.default_rng(2).standard_normal(tuple(expected.shape)).astype(np.float32)
    out.backward(engine.tensor(cotangent))
    expected.backward(torch.tensor(cotangent))
    for name in SHAPES:
        ours_grad, their_grad = ours[name].grad, theirs[name].grad
        assert (ours_grad is None) == (their_grad is None), name
        if their_grad is not None:
            np.testing.assert_allclose(ours_grad.numpy(), their_grad.numpy(), rtol=1e-5, atol=1e-5)
