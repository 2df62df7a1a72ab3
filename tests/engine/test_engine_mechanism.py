"""Issue 24's silent-wrong classes, each a snippet run on the engine and on real PyTorch 2.13: composed
`torch.func` transforms, versions shared through `detach()`, in-place writes through views of non-leaves
(CopySlices), writes to expanded tensors, and what a node saves. Printouts and errors must be identical."""
import pytest
from test_engine_vs_torch import run

import engine

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
    "view-of-view-and-transpose": """
x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
y = x * 1
v = y.t()[1:]
v.mul_(torch.tensor([[2.], [3.]]))
print(y, v, v.grad_fn, v._base is y, y._version, v._version)
(y * torch.arange(6.).reshape(2, 3)).sum().backward()
print(x.grad)
""",
    "view-in-place-with-grad-operand": """
x = torch.tensor([1., 2., 3.], requires_grad=True)
w = torch.tensor([5., 7.], requires_grad=True)
y = x.exp()
z = y * 1
z[1:].mul_(w)
z.pow(2).sum().backward()
print(z, x.grad, w.grad)
""",
    "views-see-in-place-change-of-base": """
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x * 2
v = y[1:]
y.mul_(10)
print(v, v._version, y._version)
v.sum().backward()
print(x.grad)
s = y[:2]
y[2:].add_(x[:1])
print(s.grad_fn, y.grad_fn)
a = torch.zeros(2, 3)
row = a[1]
a.add_(1)
row.mul_(5)
print(a, row, a._version)
""",
    "double-backward-through-copy-slices": """
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x * x
y[:2].mul_(x[1:])
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
print(g)
g.sum().backward()
print(x.grad)
""",
    "fill-expanded-writes-through": """
b = torch.zeros(1, 3)
e = b.expand(2, 3)
e.fill_(2.)
print(b, e)
e.zero_()
print(b)
e2 = b.expand(2, 3)
e2.copy_(torch.ones(2, 3))
""",
    "data-has-its-own-version": """
a = torch.ones(2)
d = a.data
d.add_(1)
print(a._version, d._version, a)
""",
    "std-saves-input": """
x = torch.tensor([1., 2., 4.], requires_grad=True)
y = x * 1
s = y.std()
y.add_(1)
s.backward()
""",
    "prod-saves-input": """
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x * 1
p = y.prod()
y.mul_(2)
p.backward()
""",
}


NEW_API = {
    "second-derivatives-of-new-ops": """
x = torch.tensor([[1.5, 0., 2.], [0.5, -1., 0.]], dtype=torch.float64, requires_grad=True)
i = torch.tensor([[0, 0], [2, 1]])
for f in (lambda t: t.cumprod(1), lambda t: (t * t).cumsum(0), lambda t: (t * t).gather(1, i),
          lambda t: (t ** 3).repeat(2, 1), lambda t: (t * t).scatter(1, torch.tensor([[0, 1], [2, 1]]), t[:, :2] ** 3)):
    g, = torch.autograd.grad((f(x) * torch.arange(1., 1. + f(x).numel()).reshape(f(x).shape)).sum(), x,
                             create_graph=True)
    h, = torch.autograd.grad((g * g).sum(), x)
    print(g.detach(), h)
""",
    "zero-dim-index": """
t = torch.tensor(3.)
t[0]
""",
}


@pytest.mark.parametrize("name", sorted(NEW_API))
def test_new_api_matches_torch(name):
    assert run(NEW_API[name], engine) == run(NEW_API[name], torch)


@pytest.mark.parametrize("name", sorted(COMPOSED))
def test_composed_transforms_match_torch(name):
    assert run(COMPOSED[name], engine) == run(COMPOSED[name], torch)


@pytest.mark.parametrize("name", sorted(VERSIONS))
def test_views_and_versions_match_torch(name):
    assert run(VERSIONS[name], engine) == run(VERSIONS[name], torch)


def test_grad_of_grad_of_sin_is_minus_sin():
    value = engine.func.grad(engine.func.grad(engine.sin))(engine.tensor(0.5))
    assert abs(value.item() + 0.4794255) < 1e-6
