"""Issue 14, item 3: a snippet defines `torch.autograd.Function` and `torch.nn.Module` subclasses.

Each program runs through the runner (and once through the sandbox worker, as `autograd-tutor run` and the app
run it) and through Python with the real PyTorch: the printed values, grad_fn names, gradients and errors are the
same.  The refusals of everything else a class statement could do are in hostile/class_*.py.
"""
from __future__ import annotations

import pytest
from test_runner_generous import _ours, _python

from engine.runner import run_snippet
from engine.sandbox import run_program

torch = pytest.importorskip("torch")

# "Extending torch.autograd" (PyTorch's docs): Exp, MyReLU, MulConstant, and the LegendrePolynomial3 of "Learning
# PyTorch with Examples", each checked by gradcheck inside the snippet
FUNCTIONS = '''import math
import torch
from torch.autograd import Function


class Exp(Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result


class MyReLU(torch.autograd.Function):
    """ReLU with a hand-written backward."""

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input


class MulConstant(Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


x = torch.tensor([0.5, -1.0, 2.0, -0.25], dtype=torch.float64, requires_grad=True)
y = Exp.apply(x)
print(y, y.grad_fn.name(), y.is_leaf)
y.sum().backward()
print(x.grad)
x.grad = None
r = MyReLU.apply(x)
(r * torch.arange(4.0, dtype=torch.float64)).sum().backward()
print(r, x.grad)
m = MulConstant.apply(x, 3.0)
print(m.grad_fn.name())
for f in (Exp.apply, MyReLU.apply, LegendrePolynomial3.apply):
    print(torch.autograd.gradcheck(f, (x,)))

xs = torch.linspace(-math.pi, math.pi, 50, dtype=torch.float64)
ys = torch.sin(xs)
a = torch.full((), 0.1, dtype=torch.float64, requires_grad=True)
b = torch.full((), -1.0, dtype=torch.float64, requires_grad=True)
c = torch.full((), 0.05, dtype=torch.float64, requires_grad=True)
d = torch.full((), 0.3, dtype=torch.float64, requires_grad=True)
P3 = LegendrePolynomial3.apply
for t in range(20):
    y_pred = a + b * P3(c + d * xs)
    loss = (y_pred - ys).pow(2).sum()
    loss.backward()
    with torch.no_grad():
        for p in (a, b, c, d):
            p -= 5e-4 * p.grad
            p.grad = None
print(f"{loss.item():.6f} {a.item():.6f} {b.item():.6f} {c.item():.6f} {d.item():.6f}")
print(y_pred.grad_fn.name(), y_pred.grad_fn.next_functions[1][0].next_functions[1][0].name())
'''

# a two-layer model as the tutorials write it, with weights set explicitly (the engine's random stream is not
# PyTorch's), trained a few steps with SGD
MODULE = '''import torch
import torch.nn as nn


class TwoLayerNet(nn.Module):
    """x -> Linear -> tanh -> Linear."""
    hidden = 3

    def __init__(self, n_in, n_out):
        super().__init__()
        self.fc1 = nn.Linear(n_in, self.hidden)
        self.fc2 = nn.Linear(self.hidden, n_out)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


class Scaled(TwoLayerNet):
    def __init__(self, n_in, n_out, scale):
        super().__init__(n_in, n_out)
        self.scale = scale

    def forward(self, x):
        return super().forward(x) * self.scale

    def extra_repr(self):
        return f"scale={self.scale}"


model = Scaled(2, 1, 2.0)
with torch.no_grad():
    model.fc1.weight.copy_(torch.tensor([[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]]))
    model.fc1.bias.copy_(torch.tensor([0.01, -0.02, 0.03]))
    model.fc2.weight.copy_(torch.tensor([[0.7, -0.8, 0.9]]))
    model.fc2.bias.copy_(torch.tensor([0.05]))
print(model)
print([name for name, p in model.named_parameters()], isinstance(model, TwoLayerNet), model.training)
x = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [0.0, -1.5]])
target = torch.tensor([[1.0], [0.0], [-1.0]])
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.MSELoss()
for step in range(5):
    optimizer.zero_grad()
    loss = loss_fn(model(x), target)
    loss.backward()
    optimizer.step()
    print(step, f"{loss.item():.6f}", loss.grad_fn.name())
print(model.fc1.weight.grad)
print(model.fc2.weight)
print(model.fc2.bias.grad)
'''

FORGOT_SUPER = '''import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        self.size = 2
        self.fc = nn.Linear(2, 1)


net = Net()
'''

FORGOT_SUPER_PARAMETER = '''import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        self.w = nn.Parameter(torch.ones(2))


net = Net()
'''


@pytest.mark.parametrize("source", [FUNCTIONS, MODULE, FORGOT_SUPER, FORGOT_SUPER_PARAMETER],
                         ids=["functions", "module", "forgot-super", "forgot-super-parameter"])
def test_classes_run_as_in_pytorch(source: str) -> None:
    ours = _ours(source)
    assert ours == _python(source)
    assert ours[0].count("\n") > 3 or ours[1] is not None


def test_forgetting_super_init_is_pytorchs_error_on_its_line() -> None:
    result = run_snippet(FORGOT_SUPER)
    assert (result.error.type, result.error.message, result.error.line) == (
        "AttributeError", "cannot assign module before Module.__init__() call", 7)


def test_the_sandbox_worker_runs_a_module_and_a_function_as_in_process() -> None:
    for source in (MODULE, FUNCTIONS):
        run = run_program(source, report=True)
        assert (run.ok, run.stdout, run.error) == (True, run_snippet(source).stdout, None)
    assert run.tensors["y"]["grad_fn"] == "ExpBackward"


def test_methods_and_instances_stay_usable_after_the_run() -> None:
    result = run_snippet(MODULE)
    assert result.ok
    out = result.evaluate("model(torch.ones(1, 2)).shape")
    assert tuple(out) == (1, 1)
    assert result.evaluate("Scaled.forward(model, x).grad_fn.name()") == "MulBackward0"
    assert result.evaluate("sorted([x[0], x[1]], key=model.forward)")[0].tolist() == [-1.0, 0.5]
    assert result.evaluate("model.extra_repr()") == "scale=2.0"


@pytest.mark.parametrize(("source", "words"), [
    ("import torch\nclass T(torch.Tensor):\n    pass", "not from <class 'torch.Tensor'>"),
    ("import torch.nn as nn\nclass N(nn.Module):\n    def __repr__(self):\n        return ''", "only __init__"),
    ("import torch.nn as nn\nclass N(nn.Module):\n    def parameters(self):\n        return []",
     "torch's own 'parameters' of torch.nn.Module"),
    ("import torch.nn as nn\nclass N(nn.Module):\n    def __init__(self):\n        super(N, self).__class__",
     "super().__init__(...)"),
    ("import torch\nclass N(torch.nn.Module):\n    act = torch.relu", "descriptor"),
])
def test_refusals_say_what_a_class_may_do(source: str, words: str) -> None:
    result = run_snippet(source)
    assert result.error.type == "SnippetRejected" and words in result.error.message, result.error
    assert "refused for safety" in result.error.message
