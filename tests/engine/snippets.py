"""PyTorch snippets run verbatim on both the engine and real PyTorch; their printouts must agree.

Each snippet prints what a learner would look at (values, grads, grad_fn names); a
snippet whose last line raises is compared by exception type and message.
"""

SEEDS = {
    "autograd-wo-tamesu": """
tensor1 = torch.Tensor([[1, 2, 3], [4, 5, 6]])
tensor2 = torch.Tensor([[7, 8, 9], [10, 11, 12]])
print(tensor1)
print(tensor1.requires_grad)
tensor1.requires_grad_()
tensor2.requires_grad_()
print(tensor1, tensor1.grad)
output_tensor = (tensor1 * tensor2).mean()
print(output_tensor)
output_tensor.backward()
print(tensor1.grad)
print(tensor2.grad)
print(tensor2 / 6)
""",
    "autograd-wo-tamesu-error": """
tensor1 = torch.Tensor([[1, 2, 3], [4, 5, 6]]).requires_grad_()
tensor2 = torch.Tensor([[7, 8, 9], [10, 11, 12]]).requires_grad_()
output_tensor = tensor1 + tensor2
print(output_tensor)
output_tensor.backward()
""",
    "jacobian-vjp": """
inp = torch.tensor([1., 0.], requires_grad=True)
out = (inp + 1).pow(2)
print(out)
out.backward(torch.tensor([1, 1]), retain_graph=True)
print(inp.grad)
""",
    "jacobian-eye5": """
inp = torch.eye(5, requires_grad=True)
out = (inp + 1).pow(2)
out.backward(torch.ones_like(inp), retain_graph=True)
print(f"First call\\n{inp.grad}")
out.backward(torch.ones_like(inp), retain_graph=True)
print(f"\\nSecond call\\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(inp), retain_graph=True)
print(f"\\nCall after zeroing gradients\\n{inp.grad}")
""",
    "chain-rule": """
x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
print(x)
g = 2 * x ** 3
print(g)
h = g / 12
z = h.sum()
print(z)
z.backward()
print(x.grad)
print(g.grad_fn)
print(x ** 2 / 2)
""",
    "chain-rule-error": """
x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
y = 2 * x ** 3
y.backward()
""",
}

ENGINE = {
    "broadcast-add": """
x = torch.tensor([1., 2., 3.], requires_grad=True)
b = torch.tensor([[1.], [2.]], requires_grad=True)
y = (x * b + x).sum()
y.backward()
print(x.grad, b.grad)
""",
    "sum-mean-dims": """
x = torch.arange(12.).reshape(3, 4).requires_grad_()
y = x.sum(dim=1) * torch.tensor([1., 2., 3.])
y.sum().backward()
print(x.grad)
m = x.mean(dim=0, keepdim=True)
print(m, m.grad_fn)
m.backward(torch.ones(1, 4))
print(x.grad)
print(x.sum(1).grad_fn, x.mean().grad_fn, x.sum().grad_fn)
""",
    "matmul": """
x = torch.tensor([[1., 2.], [3., 4.], [5., 6.]], requires_grad=True)
W = torch.tensor([[0.5, -1., 2.], [1.5, 0., -0.5]], requires_grad=True)
y = x @ W
print(y)
y.backward(torch.ones(3, 3))
print(x.grad, W.grad)
v = torch.tensor([1., -1.], requires_grad=True)
print((x @ v).grad_fn, (v @ v).grad_fn, (v @ W).grad_fn, torch.matmul(x, W).grad_fn)
(x @ v).sum().backward()
print(v.grad)
""",
    "softmax": """
z = torch.tensor([1., 2., 0.5], requires_grad=True)
s = torch.softmax(z, dim=0)
print(s)
s[0].backward()
print(z.grad)
print(z.grad.sum().abs() < 1e-6)
ls = torch.log_softmax(z, 0)
print(ls)
""",
    "unary": """
x = torch.tensor([0.5, 1.5, -2.0, 3.0], requires_grad=True)
for f in [torch.exp, torch.sin, torch.cos, torch.tanh, torch.sigmoid, torch.relu, torch.abs]:
    x.grad = None
    y = f(x)
    y.sum().backward()
    print(y.grad_fn.name(), x.grad)
p = torch.tensor([0.5, 1.5, 2.0], requires_grad=True)
(p.log() + p.sqrt()).sum().backward()
print(p.grad)
c = x.clamp(-1, 1)
c.sum().backward()
print(c, x.grad)
""",
    "max-min": """
x = torch.tensor([[1., 5., 2.], [7., 0., 7.]], requires_grad=True)
m = x.max()
m.backward()
print(m, x.grad)
x.grad = None
v = x.max(dim=1)
print(v)
v.values.sum().backward()
print(x.grad)
x.grad = None
x.min(dim=0, keepdim=True).values.sum().backward()
print(x.grad, x.argmax(), x.argmin(dim=1))
""",
    "indexing": """
W = torch.arange(1., 13.).reshape(3, 4).requires_grad_()
a = W[0]
b = W[:, 1]
c = W[1:3, ::2]
d = W[0, 1:]
print(a.grad_fn, b.grad_fn, c.grad_fn, d.grad_fn, W[None].grad_fn)
(a.sum() + 2 * b.sum() + 3 * c.sum() + d.sum()).backward()
print(W.grad)
W.grad.zero_()
W[[0, 2, 0]].sum().backward()
print(W.grad)
""",
    "leaf-nonleaf": """
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 3
y.retain_grad()
z = (y ** 2).sum()
z.backward()
print(x.is_leaf, y.is_leaf, z.is_leaf, y.grad, x.grad)
d = x.detach()
print(d.requires_grad, d.is_leaf)
with torch.no_grad():
    w = x * 2
print(w.requires_grad, w.grad_fn)
print(x.grad_fn, z.grad_fn.next_functions)
""",
    "accumulate-twice": """
x = torch.tensor([1., 2., 3.], requires_grad=True)
for _ in range(3):
    (x ** 2).sum().backward()
print(x.grad)
x.grad.zero_()
print(x.grad)
""",
    "scalars-both-sides": """
x = torch.tensor([1., 2., 4.], requires_grad=True)
y = 1 - x + 2 / x - x / 2 + 3 * x ** 2 + 2 ** x
print(y)
y.sum().backward()
print(x.grad)
print((1 - x).grad_fn, (2 / x).grad_fn, (2 ** x).grad_fn, (x ** x).grad_fn, (-x).grad_fn)
""",
    "shapes": """
x = torch.arange(6.).requires_grad_()
y = x.view(2, 3).t()
print(y, y.shape, y.size(), y.size(1), y.dim(), y.numel())
z = x.reshape(3, 2).transpose(0, 1).unsqueeze(0)
print(z.shape, z.grad_fn, y.grad_fn, x.view(2, 3).T.grad_fn)
(z * torch.arange(6.).reshape(1, 2, 3)).sum().backward()
print(x.grad)
""",
    "dtypes": """
a = torch.tensor([1, 2, 3])
print(a, a.dtype, a * 2.5, a / 2, (a * 2).dtype)
b = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)
print(b, (b * 2).dtype, b.sum())
c = torch.tensor([0.1, 0.2])
print(c + b.detach(), torch.tensor(3.5), torch.tensor(True), torch.zeros(2, 3), torch.ones(2, dtype=torch.long))
print(torch.tensor([1.1666666, 123456.7]), torch.tensor([1e-5, 1.]), torch.tensor([0.18108]))
""",
    "printing-item": """
x = torch.tensor([[1.5, 2.5]], requires_grad=True)
y = (x * x).sum()
print(y.item(), x.tolist(), float(y), y.grad_fn.name())
print(torch.linspace(0, 1, 5), torch.full((2, 2), 7.), torch.eye(2))
""",
}

ERRORS = {
    "nonscalar": "x = torch.ones(3, requires_grad=True)\n(x * 2).backward()",
    "no-grad-fn": "torch.ones(3).sum().backward()",
    "int-requires-grad": "torch.tensor([1, 2], requires_grad=True)",
    "int-requires-grad-method": "torch.tensor([1, 2]).requires_grad_()",
    "broadcast": "torch.ones(3) + torch.ones(2)",
    "broadcast-2d": "torch.ones(2, 3) * torch.ones(2, 2)",
    "mm-shapes": "torch.ones(2, 3) @ torch.ones(2, 3)",
    "mv-shapes": "torch.ones(2, 3) @ torch.ones(2)",
    "dot-shapes": "torch.ones(3) @ torch.ones(2)",
    "second-backward": "x = torch.ones(3, requires_grad=True)\ny = (x * x).sum()\ny.backward()\ny.backward()",
    "inplace-leaf": "x = torch.ones(3, requires_grad=True)\nx.add_(1)",
    # the result is saved whichever input needs a gradient (only x here), and PyTorch names its node Pow1
    "inplace-saved-result-pow": "x = torch.tensor([1.5, 2.0], requires_grad=True)\ny = x ** torch.tensor([2.0, 3.0])\n"
                                "y.mul_(2)\ny.sum().backward()",
    "inplace-saved-result-tanh": "x = torch.tensor([1.5, 2.0], requires_grad=True)\ny = x.tanh()\ny.mul_(2)\n"
                                 "y.sum().backward()",
    "inplace-leaf-mul": "x = torch.ones(3, requires_grad=True)\nx.mul_(2)",
    "gradient-shape": "x = torch.ones(3, requires_grad=True)\n(x * 2).backward(torch.ones(2))",
    "item-many": "torch.ones(3).item()",
    "requires-grad-false-nonleaf": "x = torch.ones(3, requires_grad=True)\n(x * 2).requires_grad_(False)",
    "view-size": "torch.ones(3).view(2, 2)",
    "index-range": "torch.ones(3)[5]",
    "dim-range": "torch.ones(3).sum(dim=2)",
    "numpy-requires-grad": "torch.ones(3, requires_grad=True).numpy()",
    "ragged": "torch.tensor([[1, 2], [3]])",
    "bool-ambiguous": "bool(torch.ones(3))",
    "mean-int": "torch.tensor([1, 2]).mean()",
    "clamp-none": "torch.ones(2).clamp()",
}

ENGINE.update({
    "losses-and-joins": """
import torch.nn.functional as F
x = torch.tensor([[1., -2., 3.], [0.5, 0.25, -1.]], requires_grad=True)
y = torch.tensor([[0., 1., 1.], [1., 0., 0.]])
for loss in [F.mse_loss(x, y), F.binary_cross_entropy_with_logits(x, y), F.cross_entropy(x, torch.tensor([2, 0])),
             x.norm(), x.prod(), x.var(), x.std(), (x * x).log1p().sum(), torch.where(x > 0, x, x * 2).sum(),
             torch.cat([x, x * 2], dim=1).sum(), torch.stack([x, x ** 2], dim=1).sum(),
             torch.cat([x, x], 0)[1:3].sum()]:
    x.grad = None
    loss.backward()
    print(loss, x.grad)
""",
    "pytorch-tutorial": """
x = torch.ones(2, 2, requires_grad=True)
print(x)
y = x + 2
print(y)
print(y.grad_fn)
z = y * y * 3
out = z.mean()
print(z, out)
out.backward()
print(x.grad)
print(x.requires_grad)
print((x ** 2).requires_grad)
with torch.no_grad():
    print((x ** 2).requires_grad)
inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\\nSecond call\\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\\nCall after zeroing gradients\\n{inp.grad}")
w = torch.tensor([[0.1, -0.2, 0.3], [0.5, 0.4, -0.6]], requires_grad=True)
b = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)
z = torch.matmul(torch.ones(2), w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, torch.zeros(3))
print(z.grad_fn, loss.grad_fn)
loss.backward()
print(w.grad, b.grad)
print(z.detach().requires_grad)
""",
})

ERRORS.update({
    "inplace-saved-input": "x = torch.ones(3, requires_grad=True)\ny = x * 2\nz = y * y\ny.add_(1)\nz.sum().backward()",
    "inplace-saved-output": "x = torch.ones(3, requires_grad=True)\ny = x.exp()\ny.add_(1)\ny.sum().backward()",
    "inplace-saved-constant": "x = torch.ones(3, requires_grad=True)\na = torch.ones(3)\ny = x * a\na.mul_(2)\n"
                              "y.sum().backward()",
    "setitem-saved": "x = torch.ones(3, requires_grad=True)\na = torch.ones(2, 3, dtype=torch.float64)\ny = x * a\n"
                     "a[0, 0] = 5\ny.sum().backward()",
})
ENGINE["inplace-allowed"] = """
x = torch.ones(3, requires_grad=True)
y = x + 1
y.mul_(2)
y.sum().backward()
print(x.grad, y.grad_fn)
w = x * 1
z = w + 1
w.zero_()
z.sum().backward()
print(x.grad)
"""
ENGINE["inplace-with-grad-operand"] = """
x = torch.ones(3, requires_grad=True)
w = torch.tensor([1., 2., 3.], requires_grad=True)
y = x + 1
y.mul_(w)
y.sum().backward()
print(x.grad, w.grad, y)
"""
ENGINE["setitem-and-data"] = """
x = torch.ones(3, requires_grad=True)
y = x * 2
y[0] = 0
print(y, y.grad_fn)
y.sum().backward()
print(x.grad)
v = torch.tensor(5., requires_grad=True)
z = x * 1
z[1:] = v
z.sum().backward()
print(v.grad, z)
a = torch.ones(2, 3)
a[0] = 3
a[..., 1] = torch.tensor([7., 8.])
a[a > 5] = -1
print(a)
w = torch.tensor([1., 2.], requires_grad=True)
(w * w).sum().backward()
w.data -= 0.1 * w.grad
print(w)
with torch.no_grad():
    w -= 0.5 * w.grad
print(w, w.requires_grad, w.is_leaf)
"""
ERRORS["inplace-broadcast"] = "a = torch.ones(3)\na.add_(torch.ones(2, 3))"
ENGINE["memory-layout"] = """
x = torch.ones(2, 3, requires_grad=True)
def chain(r):
    names, n = [], r.grad_fn
    while n is not None:
        names.append(n.name())
        n = n.next_functions[0][0] if n.next_functions else None
    return names
for r in [x.t().reshape(-1), x.t().contiguous(), x.t().flatten(), x[:, :2].reshape(-1), x[:, 1].reshape(1, 2),
          x.t().reshape(3, 2), x.t().view(3, 2), (x.t() * 2).reshape(6), x.reshape(6)]:
    print(chain(r), r.is_contiguous())
"""
ERRORS["view-non-contiguous"] = "x = torch.ones(2, 3)\nx.t().view(-1)"
ENGINE["grad-modes"] = """
x = torch.ones(2, requires_grad=True)
with torch.no_grad():
    a = x * 2
    with torch.enable_grad():
        b = x * 2
with torch.set_grad_enabled(False):
    c = x * 2
torch.set_grad_enabled(False)
d = x * 2
torch.set_grad_enabled(True)
e = x * 2
print(a.requires_grad, b.requires_grad, c.requires_grad, d.requires_grad, e.requires_grad, torch.is_grad_enabled())
"""
ERRORS["grad-fn-read-only"] = "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.grad_fn = None"
ENGINE["relu-zeros"] = "print(torch.relu(torch.tensor([-1., -0., 0., 2.])), torch.tensor([-3., 1.]).relu())"
ENGINE["tutorial-while-loop"] = """
x = torch.tensor([0.5, -1.2, 2.0], requires_grad=True)
y = x * 2
while y.data.norm() < 1000:
    y = y * 2
print(y)
y.backward(torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float))
print(x.grad)
"""
ENGINE["gentle-introduction"] = """
a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3*a**3 - b**2
Q.backward(gradient=torch.tensor([1., 1.]))
print(9*a**2 == a.grad, -2*b == b.grad, Q, a.grad, b.grad)
"""
ENGINE["sigmoid-softmax-reductions"] = """
x = torch.linspace(-2, 2, 5, requires_grad=True)
y = torch.sigmoid(x)
y.sum().backward()
print(x.grad, y * (1 - y))
s = torch.softmax(torch.tensor([[1., 2., 3.], [1., 1., 1.]]), dim=1)
print(s, s.sum(dim=1))
print(torch.arange(6).view(2, 3).float().mean(0), torch.tensor([[1, 2], [3, 4]]).sum(1), torch.tensor([1.5, 2.5]).max())
"""
# A Parameter is a Tensor to the in-place check too (an optimizer step before backward must be refused)
ERRORS["inplace-parameter"] = """
w = torch.nn.Parameter(torch.tensor([1., 2.]))
y = (w * w).sum()
with torch.no_grad():
    w.mul_(2)
y.backward()
"""
# A saved output is checked through its version, also after its name is dropped
ERRORS["inplace-saved-output-dropped"] = """
x = torch.tensor([1., 2.], requires_grad=True)
y = x.tanh()
z = y * 3
with torch.no_grad():
    y.mul_(2)
y = None
z.sum().backward()
"""
ERRORS["inplace-saved-output-twice"] = """
x = torch.tensor([1., 2.], requires_grad=True)
y = x.exp()
y.mul_(2)
y.exp_()
with torch.no_grad():
    y.add_(1)
y.sum().backward()
"""
ENGINE["remainder-by-parameter"] = """
w = torch.nn.Parameter(torch.tensor([2., 3.]))
x = torch.tensor([5., 7.], requires_grad=True)
r = x % w
r.sum().backward()
print(r, r.grad_fn.name(), x.grad, w.grad)
"""
# course branch: a custom Function's backward must return None for an input that is not a tensor, and a Tensor or
# None for the others (PyTorch checks every position, also those no gradient is needed for)
_SCALE = """
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        return x * k
    @staticmethod
    def backward(ctx, g):
        return {returns}
x = torch.tensor([1., 2.], requires_grad=True)
"""
ERRORS["function-grad-for-a-number"] = _SCALE.format(returns="g * 2, g * 3") + "Scale.apply(x, 2.).sum().backward()"
ERRORS["function-grad-not-a-tensor"] = _SCALE.format(returns="2.0, None") + "Scale.apply(x, 2.).sum().backward()"
ENGINE["function-number-input-none"] = _SCALE.format(returns="g * k_of(g), None").replace(
    "class Scale", "def k_of(g):\n    return 2\nclass Scale") + """
y = Scale.apply(x, 2.)
g, = torch.autograd.grad((y * y).sum(), x, create_graph=True)
print(g)
g.sum().backward()
print(x.grad)
k = torch.tensor([3., 4.])
Scale.apply(x, k).sum().backward()
print(x.grad)
"""
# hidden-corpus kind (issue 24): warnings are compared too; a non-leaf's .grad filled by backward(inputs=) is read
# without the non-leaf warning, and a float() of a tensor that requires grad warns (once a process, as PyTorch)
ENGINE["backward-inputs-non-leaf-grad"] = """
x = torch.tensor([1., 2.], requires_grad=True)
y = torch.tensor([3., 4.], requires_grad=True)
h = x * 3
(h * y).sum().backward(inputs=[h, y])
print(h.grad, y.grad, x.grad)
"""
ERRORS["grad-of-output-without-grad"] = "x = torch.tensor([1., 2.])\ntorch.autograd.grad((x * 2).sum(), x)"
# a custom Function's gradient must be the input's shape or one the input expands to (then summed), as in PyTorch
_WRONG_SHAPE = """
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return {returns}
x = torch.ones(3, requires_grad=True)
Bad.apply(x).sum().backward()
print(x.grad)
"""
ERRORS["function-grad-of-a-smaller-shape"] = _WRONG_SHAPE.format(returns="g.sum()")
ENGINE["function-grad-of-an-expanded-shape"] = _WRONG_SHAPE.format(returns="torch.stack([g, g * 3])")
# var/std without degrees of freedom: nan or inf, and PyTorch's warning
ENGINE["std-no-degrees-of-freedom"] = """
x = torch.tensor([1.], requires_grad=True)
print(x.std())
print(torch.var(x))
print(torch.ones(2, 1).std(1), torch.ones(3).var(unbiased=False))
"""
ERRORS["func-jvp-tangent-shape"] = "torch.func.jvp(torch.sin, (torch.ones(3),), (torch.ones(2),))"
# an outer product (a one-row batch's weight gradient, a Jacobian of a linear layer) keeps PyTorch's signed zeros
ENGINE["outer-product-signed-zeros"] = """
W = torch.tensor([[1., 2., 0.], [0.5, -1., 3.]], requires_grad=True)
x = torch.tensor([[0.3, -0.6, 0.9]])
y = torch.nn.functional.linear(x, W, torch.tensor([0.1, -0.2]))
y.backward(torch.tensor([[1., 0.]]))
print(W.grad)
print(torch.tensor([[0.], [1.]]) @ torch.tensor([[-1., 2.]]))
print(torch.func.jacrev(lambda w: (x @ w.t()).tanh())(W.detach()))
"""
# a view made with grad mode off of a tensor that requires grad: requires_grad, a leaf, no edge (PyTorch's CreationMeta)
ENGINE["view-made-in-no-grad"] = """
a = torch.tensor([1., 2., 3.], requires_grad=True)
with torch.no_grad():
    v = a[:2]
    w = a.detach()[:2]
print(v, v.requires_grad, v.grad_fn, v.is_leaf, w.requires_grad)
y = v * 2
print(y, y.grad_fn.next_functions)
v.register_hook(lambda g: print("never", g))
y.sum().backward()
print(v.grad, a.grad)
with torch.inference_mode():
    i = a.view(3)
    t = torch.ones(2)[:1]
print(i.requires_grad, i.is_inference(), t.is_inference())
"""
ERRORS["inplace-on-view-made-in-no-grad"] = """
a = torch.tensor([1., 2., 3.], requires_grad=True)
with torch.no_grad():
    v = a[:2]
v.mul_(2)
"""
ERRORS["inplace-on-view-made-in-inference-mode"] = """
a = torch.tensor([1., 2., 3.], requires_grad=True)
with torch.inference_mode():
    v = a[1:]
v.add_(1)
"""
ERRORS["backward-of-view-made-in-no-grad"] = """
a = torch.tensor([1., 2., 3.], requires_grad=True)
with torch.no_grad():
    v = a[:2]
v.backward(torch.ones(2))
"""
# the rest of the element-wise family learners meet: steps (straight-through estimators) and trigonometry
ENGINE["straight-through-and-trigonometry"] = """
x = torch.tensor([0.2, 0.7, -1.3], requires_grad=True)
y = x + (x.round() - x).detach()
(y * torch.tensor([1., 2., 3.])).sum().backward()
print(y, x.grad, x.floor(), torch.ceil(x), x.trunc().grad_fn)
for f in [torch.tan, torch.asin, torch.acos, torch.atan, torch.sinh, torch.cosh, torch.expm1, torch.log2, torch.rsqrt,
          torch.exp2, torch.erf]:
    x.grad = None
    z = f(x.abs() / 2)
    z.sum().backward()
    print(z.grad_fn, x.grad)
"""
# torch.nn.init with Module.apply (the constant fills: PyTorch's numbers)
ENGINE["nn-init-apply"] = """
def init_weights(m):
    if isinstance(m, torch.nn.Linear):
        torch.nn.init.constant_(m.weight, 0.5)
        torch.nn.init.zeros_(m.bias)
net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1))
net.apply(init_weights)
print(net[0].weight, net[2].bias, net(torch.ones(1, 2)))
w = torch.empty(2, 3)
print(torch.nn.init.eye_(w), torch.nn.init.ones_(torch.empty(2)), torch.nn.init.calculate_gain("leaky_relu", 0.2))
torch.nn.init.xavier_uniform_(w, gain=torch.nn.init.calculate_gain("tanh"))
print(w.shape, bool((w.abs() <= 5 / 3 * (6 / 5) ** 0.5).all()))
"""
# torch.diag, trace and outer (the torch.func tour compares jacrev(torch.sin)(x) with torch.diag(torch.cos(x)))
ENGINE["diag-trace-outer"] = """
x = torch.tensor([0.1, -0.2, 0.3], requires_grad=True)
jac = torch.func.jacrev(torch.sin)(x.detach())
print(jac, torch.allclose(jac, torch.diag(torch.cos(x.detach()))))
d = torch.diag(x * x)
(d * torch.arange(9.).reshape(3, 3)).sum().backward()
print(d, x.grad)
m = torch.tensor([[1., 2., 5.], [3., 4., 6.]], requires_grad=True)
(m.diag() * torch.tensor([2., -3.]) + m.trace()).sum().backward()
print(m.diag(1), m.grad, m.trace().grad_fn)
o = torch.outer(x, x)
g, = torch.autograd.grad(o.sum(), x, create_graph=True)
print(o, g, torch.autograd.grad(g.sum(), x))
"""
# buffers (register_buffer: in state_dict after each module's parameters, never trained) and ModuleList
ENGINE["buffers-and-module-list"] = """
class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("running", torch.zeros(2))
        self.register_buffer("scratch", torch.ones(1), persistent=False)
        self.lin = torch.nn.Linear(2, 2)
        self.scale = torch.nn.Parameter(torch.tensor(2.))
    def forward(self, x):
        self.running += x.detach().mean(0)
        return self.scale * self.lin(x)
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleList([Block() for _ in range(2)])
        self.blocks.append(torch.nn.Linear(2, 1))
    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
net = Net()
net(torch.tensor([[1., 2.]]))
print(list(net.state_dict().keys()))
print([n for n, _ in net.named_buffers()], len(list(net.parameters())), net.blocks[0].running)
print(net.blocks[0].scratch, len(net.blocks), net.blocks[-1])
print(torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)]), torch.nn.ModuleList())
copy = Net()
print(copy.load_state_dict(net.state_dict()), copy.blocks[0].running)
"""
ERRORS["load-state-dict-missing-buffer"] = """
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mean", torch.zeros(2))
        self.w = torch.nn.Parameter(torch.ones(2))
M().load_state_dict({"w": torch.zeros(2)})
"""
# split, chunk and unbind along any dim (a key shorter than the tensor's dims placed the gradient on the last ones)
ENGINE["split-chunk-unbind"] = """
x = torch.arange(6.).requires_grad_()
a, b = x.chunk(2)
f, g = x.split([1, 5])
print(a, b, torch.split(x, 4), a.grad_fn, f.grad_fn, torch.chunk(x, 4))
(a * 2 + b * 3 + g.sum()).sum().backward()
print(x.grad)
m = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
r0, r1 = m.unbind(0)
c0, c1 = torch.unbind(m, dim=1)
(r0 * r1 + c0).sum().backward()
print(r0.grad_fn, c1, m.grad, m.chunk(2, dim=1), m.split(1, -1))
"""
# autograd.functional.jacobian(strict=True) refuses outputs independent of an input (strict was ignored)
_STRICT = "print(torch.autograd.functional.jacobian({f}, {inputs}, strict=True))\n"
ENGINE["jacobian-strict-dependent"] = _STRICT.format(f="lambda x, y: x * y", inputs="(torch.ones(2), torch.ones(2))")
ERRORS["jacobian-strict-independent-input"] = _STRICT.format(f="lambda x, y: x * 2", inputs="(torch.ones(2), torch.ones(2))")
ERRORS["jacobian-strict-output-without-grad"] = _STRICT.format(f="lambda x: x.detach()", inputs="torch.ones(2)")
ERRORS["jacobian-strict-vectorized"] = _STRICT.replace("strict=True", "strict=True, vectorize=True").format(
    f="lambda x: x", inputs="torch.ones(2)")
# torch.func.vmap: the function per slice of in_dims, stacked along out_dims; composes with grad/jacrev and itself
ENGINE["vmap-dims"] = """
vmap = torch.func.vmap
x = torch.arange(6.).reshape(2, 3)
y = torch.tensor([10., 20., 30.])
print(vmap(torch.sum)(x), vmap(torch.dot)(x, x), vmap(torch.mv, in_dims=(None, 0))(torch.eye(3), x))
print(vmap(lambda a, b: a + b, in_dims=(1, 0))(x, y), vmap(lambda a: a.sum(), in_dims=-1)(x))
print(vmap(lambda r: (r * 2, r.sum()), out_dims=(1, 0))(x))
print(vmap(vmap(lambda a, b: a * b, in_dims=(0, None)), in_dims=(None, 0))(y, x))
print(vmap(lambda d: d["a"] * d["b"], in_dims=({"a": 0, "b": None},))({"a": x, "b": y}))
print(vmap(torch.outer, in_dims=(0, None), chunk_size=1)(x, y))
w = torch.ones(3, requires_grad=True)
out = vmap(lambda r: (r * w).sum())(x)
out.sum().backward()
print(out.detach(), w.grad)  # the grad_fn is StackBackward0 here: the slices' results are stacked
"""
ENGINE["vmap-per-sample-grads"] = """
grad, vmap = torch.func.grad, torch.func.vmap
w = torch.tensor([0.5, -1.0, 2.0])
def loss(w, x, t):
    return (x @ w - t) ** 2
data = torch.tensor([[1., 0., 1.], [0., 1., 0.], [2., 1., -1.], [1., 1., 1.]])
targets = torch.tensor([1., 0., 2., -1.])
per = vmap(grad(loss), in_dims=(None, 0, 0))(w, data, targets)
print(per, torch.allclose(per.mean(0), grad(lambda w: loss(w, data, targets).mean())(w)))
def f(x):
    return x.sin() * x.sum()
print(vmap(torch.func.jacrev(f))(data[:, :2]), vmap(torch.func.jacfwd(f))(data[:2]))
print(vmap(torch.func.hessian(lambda x: (x ** 3).sum()))(data[:2]))
"""
ENGINE["vmap-model-ensemble"] = """
functional_call, grad, vmap = torch.func.functional_call, torch.func.grad, torch.func.vmap
stack_module_state = torch.func.stack_module_state
models = [torch.nn.Linear(2, 1) for _ in range(3)]
for i, m in enumerate(models):
    with torch.no_grad():
        m.weight.fill_(i)
        m.bias.fill_(-i)
params, buffers = stack_module_state(models)
print(params["weight"].shape, params["bias"], buffers)
def fmodel(params, buffers, x):
    return functional_call(models[0], (params, buffers), (x,))
print(vmap(fmodel, in_dims=(0, 0, None))(params, buffers, torch.ones(4, 2)).detach())
print(models[0].weight, functional_call(models[1], {"bias": torch.tensor([5.])}, torch.ones(1, 2)))
net = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1))
with torch.no_grad():
    net[0].weight.copy_(torch.tensor([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]]))
    net[2].weight.copy_(torch.tensor([[1., -1., 0.5]]))
    net[0].bias.zero_()
    net[2].bias.zero_()
p = {k: v.detach() for k, v in net.named_parameters()}
def fnet_single(params, x):
    return functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)
x1 = torch.tensor([[1., 2.], [0.5, -1.]])
ntk = vmap(torch.func.jacrev(fnet_single), (None, 0))(p, x1)
print(sorted(ntk), ntk["0.weight"].shape, ntk["2.weight"])
g = grad(lambda p: functional_call(net, p, (x1,)).pow(2).sum())(p)
print(g["0.bias"], g["2.weight"])
"""
ERRORS["vmap-batch-size-mismatch"] = "torch.func.vmap(torch.add)(torch.ones(2, 3), torch.ones(3, 3))\n"
ERRORS["vmap-in-dim-out-of-range"] = "torch.func.vmap(torch.sin, in_dims=2)(torch.ones(2, 3))\n"
ERRORS["vmap-in-dims-none"] = "torch.func.vmap(torch.sin, in_dims=None)(torch.ones(2, 3))\n"
ERRORS["vmap-non-tensor-input"] = "torch.func.vmap(lambda x: x)(1.0)\n"
ERRORS["vmap-returns-float"] = "torch.func.vmap(lambda x: 1.0)(torch.ones(2, 3))\n"
ERRORS["vmap-random-error-mode"] = "torch.func.vmap(lambda x: x + torch.randn(3))(torch.ones(2, 3))\n"
ERRORS["vmap-no-inputs"] = "torch.func.vmap(lambda: torch.ones(1))()\n"
ERRORS["vmap-bad-randomness"] = "torch.func.vmap(torch.sin, randomness='foo')(torch.ones(2))\n"
# hooks on a backward node: register_prehook sees grad_outputs, register_hook (grad_inputs, grad_outputs); both may
# replace what they see, and a handle removes them
ENGINE["grad-fn-hooks"] = """
x = torch.tensor([1., 2.], requires_grad=True)
y = x * x
z = y.exp()
h = z.grad_fn.register_prehook(lambda go: print("pre", go))
y.grad_fn.register_hook(lambda gi, go: print("post", gi, go))
z.grad_fn.register_hook(lambda gi, go: (gi[0] * 10,))
y.grad_fn.register_prehook(lambda go: (go[0] + 1,))
z.sum().backward(retain_graph=True)
print(x.grad)
h.remove()
x.grad = None
z.sum().backward()
print(x.grad)
a = torch.tensor([3.], requires_grad=True)
b = torch.tensor([4.], requires_grad=True)
c = a * b
c.grad_fn.register_hook(lambda gi, go: (gi[0], None))
(g,) = torch.autograd.grad(c.sum() * 2, [a], create_graph=True)
print(g, torch.autograd.grad(c.sum(), [a, b], allow_unused=True))
"""
ERRORS["grad-fn-hook-wrong-count"] = """
x = torch.tensor([1., 2.], requires_grad=True)
y = x.exp()
y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0]))
y.sum().backward()
"""
# ctx.mark_dirty: an input changed in place and returned is the same tensor, now made by the Function
_ADD_ONE = """
class AddOne(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x
    @staticmethod
    def backward(ctx, g):
        return g * 2
a = torch.tensor([1., 2.], requires_grad=True)
"""
ENGINE["custom-function-mark-dirty"] = _ADD_ONE + """
b = a.clone()
c = AddOne.apply(b)
print(c, c is b, c.grad_fn, c._version)
(c * c).sum().backward()
print(a.grad)
"""
ERRORS["custom-function-mark-dirty-leaf"] = _ADD_ONE + "AddOne.apply(a)\n"
# index_select: its double backward is PyTorch's zeros.index_add(...) (IndexAddBackward0)
ENGINE["index-select-double-backward"] = """
x = torch.arange(6.).reshape(2, 3).requires_grad_()
(g,) = torch.autograd.grad((x.index_select(0, torch.tensor([1, 1])) ** 2).sum(), x, create_graph=True)
print(g)
g.sum().backward()
print(x.grad)
"""
# the backward of t() recorded with create_graph is itself a t() (TBackward0), as PyTorch's "grad.t()"
ENGINE["t-double-backward"] = """
W = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
c = torch.tensor([[1., -1.], [2., 0.5]], requires_grad=True)
(g,) = torch.autograd.grad((W.t() * c).sum(), W, create_graph=True)
print(g)
"""
