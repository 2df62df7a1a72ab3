"""Issue 24's silent-wrong classes, each a snippet run on the engine and on real PyTorch 2.13: composed
`torch.func` transforms, versions shared through `detach()`, in-place writes through views of non-leaves
(CopySlices), writes to expanded tensors, and what a node saves. Printouts and errors must be identical."""
import pytest

import engine
from test_engine_vs_torch import run

torch = pytest.importorskip("torch")
# PyTorch imports parts of functorch on first use; done here, outside `run`'s patched sys.modules (which would
# drop them after the snippet, and a second import of them fails)
torch.func.hessian(lambda t: (t ** 3).sum())(torch.ones(2))
torch.func.jvp(torch.sin, (torch.ones(2),), (torch.ones(2),))

COMPOSED = {
    "grad-of-grad": """
grad = torch.func.grad
print(grad(grad(torch.sin))(torch.tensor(0.5)))
print(grad(grad(grad(torch.sin)))(torch.tensor(0.5)))
""",
    "jacrev-of-jacrev": """
jacrev = torch.func.jacrev
def f(x):
    return x.sin() * x.sum()
x = torch.tensor([0.5, -1.0, 2.0])
print(jacrev(jacrev(f))(x))
""",
    "jacfwd-of-jacrev": """
jacfwd = torch.func.jacfwd
jacrev = torch.func.jacrev
def f(x):
    return (x ** 3).sum() * x
x = torch.tensor([0.5, -1.0, 2.0])
print(jacfwd(jacrev(f))(x))
print(jacrev(jacfwd(f))(x))
""",
    "hessian": """
hessian = torch.func.hessian
def f(x):
    return (x.sin() * x).sum()
x = torch.tensor([0.5, -1.0, 2.0])
print(hessian(f)(x) + 0)  # (+ 0: signed zeros off the diagonal are not compared)
print(hessian(lambda a, b: (a * b * b).sum(), argnums=1)(x, x * 2) + 0)
print([[h + 0 for h in row] for row in hessian(lambda a, b: (a * a * b).sum(), argnums=(0, 1))(x, x * 2)])
""",
    "grad-has-aux-detached": """
grad = torch.func.grad
def f(x):
    y = x.sin()
    return y.sum(), y
x = torch.tensor([0.5, 1.0])
g, aux = grad(f, has_aux=True)(x)
print(g, aux, aux.requires_grad, aux.grad_fn)
""",
    "grad-closure-keeps-outer-graph": """
grad = torch.func.grad
w = torch.tensor([1.5, -2.0], requires_grad=True)
g = grad(lambda x: (w * x ** 2).sum())(torch.tensor([1.0, 3.0]))
print(g.grad_fn is not None, g.requires_grad)
g.sum().backward()
print(w.grad)
""",
    "grad-of-input-requiring-grad": """
grad = torch.func.grad
x = torch.tensor([0.5, 1.0], requires_grad=True)
g = grad(lambda t: (t ** 3).sum())(x)
print(g.requires_grad)
g.sum().backward()
print(x.grad)
""",
    "grad-inside-closure-of-outer-grad": """
grad = torch.func.grad
def outer(x):
    return grad(lambda y: (x * y ** 2).sum())(torch.tensor([1.0, 2.0])).sum()
print(grad(outer)(torch.tensor([3.0, 4.0])))
""",
    "vjp-composed": """
grad = torch.func.grad
vjp = torch.func.vjp
def f(x):
    _, fn = vjp(torch.sin, x)
    return fn(torch.ones(2))[0].sum()
print(grad(f)(torch.tensor([0.5, 1.0])))
""",
    "jvp-composed": """
grad = torch.func.grad
jvp = torch.func.jvp
def f(x):
    return jvp(torch.sin, (x,), (torch.ones(2),))[1].sum()
print(grad(f)(torch.tensor([0.5, 1.0])))
""",
    "transform-under-no-grad": """
grad = torch.func.grad
with torch.no_grad():
    print(grad(lambda t: (t.sin() * t).sum())(torch.tensor([0.5, 1.0])))
""",
    "functional-create-graph-keeps-inputs": """
x = torch.tensor([0.5, 1.0], requires_grad=True)
j = torch.autograd.functional.jacobian(lambda t: t ** 3, x, create_graph=True)
j.sum().backward()
print(x.grad)
h = torch.autograd.functional.hessian(lambda t: (t ** 4).sum(), x, create_graph=True)
print(h.requires_grad)
""",
}

VERSIONS = {
    "detach-shares-version": """
x = torch.tensor([1., 2.], requires_grad=True)
y = x.exp()
y.detach().zero_()
print(y)
y.sum().backward()
""",
    "detach-version-counter": """
a = torch.ones(2)
d = a.detach()
d.add_(1)
print(a._version, d._version, a)
""",
    "inplace-through-view-of-non-leaf": """
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x * 2
y[1:].mul_(3)
print(y, y.grad_fn)
y.sum().backward()
print(x.grad)
""",
    "setitem-through-view-of-non-leaf": """
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x * 2
v = y[:2]
v[0] = 10.
print(y, y.grad_fn)
(y * y).sum().backward()
print(x.grad)
""",
    "inplace-view-version": """
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x * 2
z = y.sin()
y[1:].mul_(3)
z.sum().backward()
""",
    "write-to-expanded": """
a = torch.zeros(1, 3).expand(2, 3)
a.add_(1)
""",
    "prod-saves-input": """
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x * 1
p = y.prod()
y.mul_(2)
p.backward()
""",
}


@pytest.mark.parametrize("name", sorted(COMPOSED))
def test_composed_transforms_match_torch(name):
    assert run(COMPOSED[name], engine) == run(COMPOSED[name], torch)


def test_grad_of_grad_of_sin_is_minus_sin():
    value = engine.func.grad(engine.func.grad(engine.sin))(engine.tensor(0.5))
    assert abs(value.item() + 0.4794255) < 1e-6
