"""A training loop (nn.Module, Linear, Sequential, activations, losses, SGD and Adam) against PyTorch:
printouts, parameter names, loss values step by step, zero_grad(set_to_none=True), train/eval."""
from __future__ import annotations

import pytest

import engine

torch = pytest.importorskip("torch")


def run(torch):
    out = []
    model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1), torch.nn.Sigmoid())
    with torch.no_grad():
        model[0].weight.copy_(torch.tensor([[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]]))
        model[0].bias.copy_(torch.tensor([0.01, -0.02, 0.03]))
        model[2].weight.copy_(torch.tensor([[0.7, -0.8, 0.9]]))
        model[2].bias.copy_(torch.tensor([0.05]))
    out.append(repr(model))
    out.append([n for n, _ in model.named_parameters()])
    out.append(repr(model[0].bias))
    x = torch.tensor([[1., 2.], [0.5, -1.], [-1.5, 0.3]])
    y = torch.tensor([[1.], [0.], [1.]])
    for opt_name, make in (("SGD", lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01)),
                           ("Nesterov", lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True)),
                           ("Adam", lambda p: torch.optim.Adam(p, lr=0.05, weight_decay=0.01)),
                           ("AMSGrad", lambda p: torch.optim.Adam(p, lr=0.05, amsgrad=True))):
        opt = make(model.parameters())
        for loss_fn in (torch.nn.BCELoss(), torch.nn.MSELoss(reduction="sum")):
            for _ in range(5):
                opt.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                opt.step()
                out.append((opt_name, round(loss.item(), 5)))
        out.append(model[0].grad if hasattr(model[0], "grad") else None)
        out.append(model[2].weight.grad is None)
    out.append(repr(torch.optim.SGD(model.parameters(), lr=0.1)))
    logits = torch.nn.Linear(2, 3)
    with torch.no_grad():
        logits.weight.copy_(torch.tensor([[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]]))
        logits.bias.zero_()
    ce = torch.nn.CrossEntropyLoss()(logits(x), torch.tensor([0, 2, 1]))
    out.append(round(ce.item(), 4))
    bce = torch.nn.BCEWithLogitsLoss(reduction="sum")(model[2](torch.ones(3)), torch.tensor([1.]))
    out.append(round(bce.item(), 5))
    model.eval(); out.append((model.training, model[0].training)); model.train(); out.append(model[1].training)
    out.append(repr(torch.nn.Flatten()(torch.ones(2, 3, 4)).shape))
    model.zero_grad(); out.append([p.grad for p in model.parameters()])
    out.append(type(model[0].weight).__name__)
    out.append(isinstance(model[0].weight, torch.Tensor))
    return out


def test_training_loop_matches_torch():
    expected, actual = run(torch), run(engine)
    assert len(actual) == len(expected)
    for e, a in zip(expected, actual):
        assert a == e


def shared_modules(torch):
    """Modules shared by several parents (and a cycle): each visited once by the traversals, as PyTorch's memo
    does; the repr shows a shared module under every parent, and a multi-line extra_repr as PyTorch lays it out."""
    class Note(torch.nn.Module):
        def extra_repr(self):
            return "first\nsecond"

    out = []
    layer = torch.nn.Linear(1, 1)
    tree = torch.nn.Sequential(layer, torch.nn.Sequential(layer, Note()), layer)
    for _ in range(3):
        tree = torch.nn.Sequential(tree, tree)
    out.append([name for name, _ in tree.named_parameters()])
    out.append([name for name, _ in tree.named_modules()])
    out.append(len(list(tree.modules())))
    out.append(len(list(tree[0].children())))
    out.append(repr(torch.nn.Sequential(layer, torch.nn.Sequential(Note(), layer), Note(), torch.nn.Sequential())))
    loop = Note()
    outer = torch.nn.Sequential(loop)
    loop.back = outer
    out.append([name for name, _ in outer.named_modules()])
    out.append(len(list(outer.parameters())))
    return out


def test_shared_modules_match_torch():
    assert shared_modules(engine) == shared_modules(torch)


@pytest.mark.parametrize("option, value", [("lr", [0.1]), ("momentum", "0.9"), ("weight_decay", [[0.1]] * 4)])
def test_optimizer_options_that_are_not_numbers_raise_type_error(option, value):
    w = engine.ones(4, requires_grad=True)
    w.grad = engine.ones(4)
    opt = engine.optim.SGD([w], lr=0.1, momentum=0.5)
    opt.param_groups[0][option] = value
    with pytest.raises(TypeError, match=option):
        opt.step()
    assert w.tolist() == [1.0] * 4


def test_optimizer_state_of_another_shape_raises_as_torch():
    for lib in (engine, torch):
        w = lib.ones(3, requires_grad=True)
        w.grad = lib.ones(3)
        opt = lib.optim.SGD([w], lr=0.1, momentum=0.9)
        opt.step()
        opt.state[w]["momentum_buffer"] = lib.ones(3, 1)
        with pytest.raises(RuntimeError, match=r"output with shape \[3, 1\] doesn't match"):
            opt.step()


def test_duplicate_parameters_warn_as_torch():
    for lib in (engine, torch):
        w = lib.ones(2, requires_grad=True)
        with pytest.warns(UserWarning, match="duplicate parameters"):
            lib.optim.SGD([w, w], lr=0.1)
