"""`grad_fn._saved_*` against PyTorch 2.13: what a node saved, by PyTorch's names (`_saved_self`, `_saved_other`,
`_saved_result`, `_saved_exponent`…), with PyTorch's identities (a saved input is that very tensor, the saved
result a new tensor on the same data) and PyTorch's error once a backward freed the graph. The engine offers a
subset of PyTorch's attributes (never `_saved_dim`, which it keeps counted from the end): every one it offers
must exist in PyTorch with the same value."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import engine

PROGRAMS = [
    "y = x.pow(2)", "y = x.exp()", "y = x * w", "y = w * x", "y = x * 2.5", "y = x / (w + 3)", "y = x.sin()",
    "y = x.sigmoid()", "y = x.tanh()", "y = x.relu()", "y = x.log1p()", "y = x.softmax(-1)", "y = x.var()",
    "y = x.abs()", "y = x.max()", "y = x.max(1).values", "y = x.cumprod(1)", "y = x.gather(1, i)",
    "y = torch.addmm(b, x, w.t(), alpha=2, beta=0.5)", "y = x.mm(w.t())", "y = x.pow(w)", "y = 2 ** x",
    "y = x.masked_fill(w > 0, 1.0)", "y = torch.where(w > 0, x, w)", "y = x.clamp(0, 1)", "y = x[0, [1, 1, 2]]",
    "y = x.norm()", "y = x.std()", "y = x.prod()", "y = x.sqrt()",
]


def _run(lib, code: str, arrays: dict):
    env = {"torch": lib, "x": lib.tensor(arrays["x"], requires_grad=True), "w": lib.tensor(arrays["w"]),
           "b": lib.tensor(arrays["b"], requires_grad=True), "i": lib.tensor(arrays["i"])}
    exec(code, env)
    return env


def _saved(node) -> list[str]:
    return [name for name in dir(node) if name.startswith("_saved_")]


@pytest.mark.parametrize("code", PROGRAMS)
def test_saved_values_are_pytorchs(code):
    rng = np.random.default_rng(0)
    arrays = {"x": rng.uniform(0.5, 2, (2, 3)).astype(np.float32), "w": rng.standard_normal((2, 3)).astype(np.float32),
              "b": rng.standard_normal((2, 2)).astype(np.float32), "i": np.array([[0, 2], [1, 1]])}
    ours, theirs = _run(engine, code, arrays), _run(torch, code, arrays)
    node, reference = ours["y"].grad_fn, theirs["y"].grad_fn
    for name in _saved(node):
        assert hasattr(reference, name), f"{code}: {name} is not PyTorch's"
        value, expected = getattr(node, name), getattr(reference, name)
        if isinstance(expected, torch.Tensor):
            assert isinstance(value, engine.Tensor), f"{code}: {name} is {value!r}"
            np.testing.assert_allclose(value.detach().numpy(), expected.detach().numpy(), rtol=1e-6)
            assert str(value.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1], name
            for var in ("x", "w", "b", "i", "y"):  # the same identities: a saved input *is* that tensor
                assert (value is ours[var]) == (expected is theirs[var]), f"{code}: {name} is {var}"
            assert value.requires_grad == expected.requires_grad, name
        else:
            assert value == expected, f"{code}: {name} = {value!r}, PyTorch {expected!r}"


def test_the_tutorials_saved_values_are_offered():
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    assert x.pow(2).grad_fn._saved_self is x
    y = x.exp()
    assert y.grad_fn._saved_result.equal(y) and y.grad_fn._saved_result is not y
    assert _saved(x.pow(2).grad_fn) == ["_saved_exponent", "_saved_self"]
    assert _saved((x * x).grad_fn) == ["_saved_other", "_saved_self"]


def test_saved_tensors_are_freed_by_backward_and_arguments_stay():
    for lib in (engine, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.pow(3)
        assert y.grad_fn._saved_self is x and y.grad_fn._saved_exponent == 3
        y.sum().backward()
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            y.grad_fn._saved_self
        assert y.grad_fn._saved_exponent == 3
        z = x.exp()
        assert z.grad_fn._saved_result is not z and z.grad_fn._saved_result.equal(z)
        z.sum().backward(retain_graph=True)
        assert z.grad_fn._saved_result.equal(z)  # retained: still there


def test_what_pytorch_does_not_save_is_an_attribute_error():
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(AttributeError, match="_saved_other"):
        x.exp().grad_fn._saved_other
    with pytest.raises(AttributeError, match="_saved_dim"):  # PyTorch has it; the engine does not pretend
        x.softmax(0).grad_fn._saved_dim
