"""Module hooks against real PyTorch 2.13: the same programs print the same calls, in the same order, with the
same values, and raise the same errors (forward and forward pre-hooks, full backward and backward pre-hooks,
replaced values, handles)."""
import warnings

import pytest
from test_engine_vs_torch import run

import engine

torch = pytest.importorskip("torch")

LAYER = """
import torch
import torch.nn as nn
lin = nn.Linear(2, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1., -2.], [3., 0.5]]))
    lin.bias.copy_(torch.tensor([0.5, -1.]))
x = torch.tensor([[1., 2.], [-1., 3.]], requires_grad=True)
"""

PROGRAMS = {
    "forward-hooks-order-and-replace": LAYER + """
def pre(m, args):
    print("pre", type(m).__name__, args)
    return args[0] * 2
def pre_first(m, args, kwargs):
    print("pre_first", args, kwargs)
def fwd(m, args, out):
    print("fwd", args, out)
    return out + 1
def fwd_kw(m, args, kwargs, out):
    print("fwd_kw", kwargs, out)
lin.register_forward_pre_hook(pre)
lin.register_forward_pre_hook(pre_first, prepend=True, with_kwargs=True)
lin.register_forward_hook(fwd)
lin.register_forward_hook(fwd_kw, with_kwargs=True)
y = lin(x)
print(y)
y.sum().backward()
print(x.grad)
""",
    "pre-hook-replaces-args-and-kwargs": """
import torch
import torch.nn as nn
class Scale(nn.Module):
    def forward(self, x, k=1.0):
        return x * k
m = Scale()
m.register_forward_pre_hook(lambda mod, args, kwargs: ((args[0] + 1,), {"k": 3.0}), with_kwargs=True)
x = torch.tensor([1., 2.], requires_grad=True)
y = m(x, k=10.0)
print(y)
y.sum().backward()
print(x.grad)
""",
    "full-backward-hook-sees-and-clips": LAYER + """
def show(m, grad_input, grad_output):
    print("grad_output", grad_output)
    print("grad_input", grad_input)
def clip(m, grad_input, grad_output):
    return tuple(g.clamp(-1, 1) for g in grad_input)
lin.register_full_backward_hook(show)
lin.register_full_backward_hook(clip)
lin.register_full_backward_hook(show)
out = lin(x)
(out * torch.tensor([[1., 2.], [3., 4.]])).sum().backward()
print(x.grad)
print(lin.weight.grad)
print(lin.bias.grad)
""",
    "backward-pre-hook-scales-grad-output": LAYER + """
def scale(m, grad_output):
    print("pre", grad_output)
    return (grad_output[0] * 10,)
def show(m, grad_input, grad_output):
    print("after", grad_input, grad_output)
lin.register_full_backward_pre_hook(scale)
lin.register_full_backward_hook(show)
lin(x).sum().backward()
print(x.grad, lin.weight.grad, lin.bias.grad)
""",
    "grad-fn-chain": LAYER + """
lin.register_full_backward_hook(lambda m, gi, go: None)
out = lin(x)
print(out)
print(type(out.grad_fn).__name__, out.grad_fn.name())
node = out.grad_fn.next_functions[0][0]
print(type(node).__name__)
print([type(f).__name__ for f, _ in node.next_functions])
inner = [f for f, _ in node.next_functions if type(f).__name__ == "BackwardHookFunctionBackward"][0]
print([type(f).__name__ for f, _ in inner.next_functions])
""",
    "sequential-order": """
import torch
import torch.nn as nn
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
with torch.no_grad():
    net[0].weight.copy_(torch.tensor([[1., 0., -1.], [0.5, 0.5, 0.5], [-1., 2., 0.], [0., -1., 1.]]))
    net[0].bias.copy_(torch.tensor([0., -1., 0.5, 0.]))
    net[2].weight.copy_(torch.tensor([[1., -1., 2., 0.5]]))
    net[2].bias.fill_(0.25)
acts = {}
for name, layer in net.named_children():
    layer.register_forward_hook(lambda m, a, o, name=name: acts.__setitem__(name, o.detach()))
    layer.register_full_backward_pre_hook(lambda m, go, name=name: print("pre", name, go))
    layer.register_full_backward_hook(lambda m, gi, go, name=name: print("bwd", name, gi))
x = torch.tensor([[1., 2., 3.], [0., -1., 2.]], requires_grad=True)
net(x).sum().backward()
print(acts)
print(x.grad)
print(net[0].weight.grad)
""",
    "handles": LAYER + """
calls = []
h1 = lin.register_forward_hook(lambda m, a, o: calls.append("fwd"))
h2 = lin.register_full_backward_hook(lambda m, gi, go: calls.append("bwd"))
print(type(h1).__name__, h1.id < h2.id)
out = lin(x)
h2.remove()
out.sum().backward()
print(calls)
h1.remove()
h1.remove()
lin(x).sum().backward()
print(calls)
with lin.register_forward_hook(lambda m, a, o: calls.append("inside")) as h3:
    lin(x)
    print(type(h3).__name__)
lin(x)
print(calls)
""",
    "no-input-requires-grad": """
import torch
import torch.nn as nn
lin = nn.Linear(2, 1)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[2., -1.]]))
lin.register_full_backward_hook(lambda m, gi, go: print("hook", gi, go))
lin(torch.tensor([[1., 3.]])).sum().backward()
print(lin.weight.grad)
with torch.no_grad():
    print(lin(torch.tensor([[1., 3.]])).requires_grad)
""",
    "two-inputs-two-outputs": """
import torch
import torch.nn as nn
class Two(nn.Module):
    def forward(self, a, b, k=2.0):
        return a * b * k, a + b
m = Two()
m.register_full_backward_hook(lambda mod, gi, go: print("hook", gi, go))
a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([3., 4.])
o1, o2 = m(a, b)
print(o1.requires_grad, o2.requires_grad)
(o1.sum() + 3 * o2.sum()).backward()
print(a.grad)
""",
    "hook-in-double-backward": LAYER + """
lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 3,))
out = (lin(x) ** 2).sum()
g, = torch.autograd.grad(out, x, create_graph=True)
print(g)
g.sum().backward()
print(x.grad)
""",
    "always-call": """
import torch
import torch.nn as nn
lin = nn.Linear(2, 2)
lin.register_forward_hook(lambda m, a, o: print("always", o), always_call=True)
lin.register_forward_hook(lambda m, a, o: print("only on success"))
lin(torch.ones(3))
""",
}

ERRORS = {
    "grad-input-count": LAYER + """
lin.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
lin(x).sum().backward()
""",
    "grad-input-shape": LAYER + """
lin.register_full_backward_hook(lambda m, gi, go: (torch.zeros(3),))
lin(x).sum().backward()
""",
    "grad-input-not-a-tuple": LAYER + """
lin.register_full_backward_hook(lambda m, gi, go: 5)
lin(x).sum().backward()
""",
    "grad-output-count": LAYER + """
lin.register_full_backward_pre_hook(lambda m, go: (go[0], 1))
lin(x).sum().backward()
""",
    "pre-hook-kwargs-return": LAYER + """
lin.register_forward_pre_hook(lambda m, a, k: 3, with_kwargs=True)
lin(x)
""",
    "grad-input-not-tensors": LAYER + """
lin.register_full_backward_hook(lambda m, gi, go: ("a",))
lin(x).sum().backward()
""",
    "grad-output-not-tensors": LAYER + """
lin.register_full_backward_pre_hook(lambda m, go: (3.0,))
lin(x).sum().backward()
""",
    "no-input-hook-returns-grads": """
import torch
import torch.nn as nn
lin = nn.Linear(2, 1)
lin.register_full_backward_hook(lambda m, gi, go: (torch.ones(1, 2),))
lin(torch.ones(1, 2)).sum().backward()
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_module_hooks_match_torch(name):
    expected = run(PROGRAMS[name], torch)
    assert "Error" not in expected or name == "always-call", expected
    assert run(PROGRAMS[name], engine) == expected


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_module_hook_errors_match_torch(name):
    expected = run(ERRORS[name], torch)
    assert "Error: " in expected.splitlines()[-1], expected
    assert run(ERRORS[name], engine) == expected


WARNINGS = {
    "no-input-requires-grad": "m = torch.nn.Linear(2, 1)\nm.register_full_backward_hook(lambda m, gi, go: None)\n"
                              "m(torch.ones(1, 2)).sum().backward()",
    "output-not-a-tensor": "m = torch.nn.Linear(2, 2)\nm.forward = lambda x: {'y': x}\n"
                           "m.register_full_backward_hook(lambda m, gi, go: None)\nm(torch.ones(2, requires_grad=True))",
}


@pytest.mark.parametrize("name", sorted(WARNINGS))
def test_module_hook_warnings_match_torch(name):
    def warned(module) -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            exec(WARNINGS[name], {"torch": module})
        return [f"{w.category.__name__}: {w.message}" for w in caught]
    expected = warned(torch)
    assert len(expected) == 1
    assert warned(engine) == expected
