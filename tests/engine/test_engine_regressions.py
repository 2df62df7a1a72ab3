"""Issue 11's eight classes of fidelity bugs, each a snippet run on the engine and on real PyTorch 2.13:
the printouts (values, dtypes, grad_fn names) and errors must be identical."""
import pytest
from test_engine_vs_torch import run

import engine

torch = pytest.importorskip("torch")

REGRESSIONS = {
    # 1. gradient accumulation: a 0-dim .grad stays a tensor that zero_() can clear
    "zero-dim-grad-accumulates": """
w = torch.tensor(1., requires_grad=True)
(w * 2).backward()
(w * 3).backward()
print(w.grad)
w.grad.zero_()
print(w.grad, w.grad.shape)
g = torch.autograd.grad(w * 4, w)[0]
print(g, g.shape)
g.zero_()
""",
    # 2. type promotion: a 0-dim tensor only wins when its category is higher
    "promotion-zero-dim": """
a = torch.tensor(2., dtype=torch.float64)
print((a * torch.tensor([1, 2])).dtype, (torch.tensor([1, 2], dtype=torch.int32) * a).dtype)
print((torch.tensor([1.]) * a).dtype, (torch.tensor([1, 2], dtype=torch.int32) * torch.tensor(3)).dtype)
print((torch.tensor([1], dtype=torch.uint8) + torch.tensor(-2)).dtype, (torch.tensor([True]) + torch.tensor(2)).dtype)
print((torch.tensor([1, 2]) * 2.5).dtype, (torch.tensor([1, 2]) / torch.tensor([2, 2])).dtype)
w = torch.tensor([1., 2.], requires_grad=True)
s = torch.tensor(3., dtype=torch.float64, requires_grad=True)
y = (w * s).sum()
y.backward()
print(y.dtype, w.grad, s.grad)
""",
    # 3. signatures read as PyTorch reads them
    "var-std-positional-dim": """
x = torch.tensor([[1., 2., 3.], [4., 5., 9.]], requires_grad=True)
print(x.var(1), x.std(0), x.var(True), x.var(0, True, True))
print(x.var(dim=1, correction=0), x.std(1, unbiased=False, keepdim=True), torch.var(x, 1))
x.std(1).sum().backward()
print(x.grad)
""",
    # 4. prod's gradient with zeros is finite
    "prod-grad-with-zeros": """
p = torch.tensor([2., 0., 3.], requires_grad=True)
p.prod().backward()
print(p.grad)
q = torch.tensor([[2., 0., 0.], [1., 2., 3.]], requires_grad=True)
q.prod(1).sum().backward()
print(q.grad)
""",
    # 5. pow with a zero base: the exponent's gradient is 0 where base == 0 and exponent >= 0
    "pow-zero-base": """
base = torch.tensor([0., 0., 2., 0.], requires_grad=True)
expo = torch.tensor([2., 0., -1., 0.5], requires_grad=True)
torch.pow(base, expo).sum().backward()
print(base.grad, expo.grad)
e = torch.tensor([0., 1.], requires_grad=True)
(0 ** e).sum().backward()
print(e.grad)
""",
    # 7. y[y < 0] = 0. is an index_put
    "index-put-grad-fn": """
x = torch.tensor([-1., 2., -3.], requires_grad=True)
y = x * 2
y[y < 0] = 0.
print(y)
y.sum().backward()
print(x.grad)
z = x * 1
z[0] = 5.
print(z)
""",
    # a gradient dropped by a mask is +0, as PyTorch's where(mask, grad, 0), never -0 from grad * mask
    "masked-gradients-are-plus-zero": """
x = torch.tensor([-1., 0.5, 2., 0.], requires_grad=True)
y = torch.tensor([0.5, 0.5, 1., 0.], requires_grad=True)
for out in (x.clamp(min=0), x.clamp(max=0.5), x.clamp(0, 1), x.clip(0, 1), torch.maximum(x, y), torch.minimum(x, y),
            torch.where(x > 0, x, y), x.sign(), x.max(), x.max(0).values, x.relu(), x ** 0, y ** x, x.prod(),
            torch.zeros(4).copy_(x), x.abs(), x.norm(float("inf"))):
    x.grad = y.grad = None
    out.backward(-torch.ones_like(out))
    print(out.grad_fn.name(), x.grad, y.grad)
""",
}

ERRORS = {
    # 6. errors PyTorch raises
    "matmul-float-double": "torch.ones(2, 2) @ torch.ones(2, 2, dtype=torch.float64)",
    "matmul-vec-float-double": "torch.ones(2) @ torch.ones(2, dtype=torch.float64)",
    "mm-float-long": "torch.ones(2, 2).mm(torch.ones(2, 2, dtype=torch.int64))",
    "dot-2d": "torch.dot(torch.ones(2, 2), torch.ones(2, 2))",
    "cross-entropy-float-classes": "torch.nn.functional.cross_entropy(torch.ones(3, 4), torch.tensor([1., 2., 0.]))",
    # 8. PyTorch's wording
    "grad-unused-input": """
x = torch.tensor([1., 2.], requires_grad=True)
y = torch.tensor([1., 2.], requires_grad=True)
torch.autograd.grad((x * 2).sum(), [x, y])
""",
    "inplace-view-of-leaf": """
leaf = torch.ones(3, requires_grad=True)
leaf[:2].mul_(2)
""",
    "setitem-view-of-leaf": """
leaf = torch.ones(3, requires_grad=True)
v = leaf[:2]
v[0] = 2.
""",
    "target-out-of-bounds": "torch.nn.functional.cross_entropy(torch.ones(3, 4), torch.tensor([1, 2, 4]))",
    "float-index": "torch.ones(3)[torch.tensor([0., 1.])]",
}


@pytest.mark.parametrize("name", sorted(REGRESSIONS))
def test_regression_matches_torch(name):
    assert run(REGRESSIONS[name], engine) == run(REGRESSIONS[name], torch)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_regression_error_matches_torch(name):
    expected = run(ERRORS[name], torch)
    assert ":" in expected, "the snippet should raise in PyTorch"
    assert run(ERRORS[name], engine) == expected


@pytest.mark.parametrize("shape", [(3,), (2, 3), (2, 3, 4), (2, 3, 4, 5)])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_without_dim_warns_and_picks_torchs_dim(name, shape):
    import warnings

    import numpy as np

    results = []
    for lib in (engine, torch):
        x = lib.arange(float(np.prod(shape))).reshape(shape) / 7
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = getattr(lib.nn.functional, name)(x)
        results.append((y.detach().numpy(), [(w.category, str(w.message), w.filename) for w in caught]))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5, atol=1e-6)
    assert results[0][1] == results[1][1]


def test_result_type_agrees_with_torch_for_every_dtype_pair():
    """The one promotion path (engine.dtypes.result_type) against torch.result_type: dimensioned and 0-dim
    tensors of every dtype, and Python numbers."""
    import itertools

    import numpy as np

    from engine.dtypes import result_type

    kinds = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64]
    for a, b in itertools.product(kinds, kinds):
        for da, db in itertools.product((0, 1), (0, 1)):
            x, y = np.zeros((2,) * da, a), np.zeros((2,) * db, b)
            assert str(torch.result_type(torch.from_numpy(x), torch.from_numpy(y))) == f"torch.{result_type(x, y).name}"
        for number in (True, 2, 2.5):
            for x in (np.zeros((2,), a), np.zeros((), a)):
                assert str(torch.result_type(torch.from_numpy(x), number)) == f"torch.{result_type(x, number).name}"


def test_float_of_a_tensor_that_requires_grad_warns_once_a_process():
    """PyTorch warns on the first float() of a tensor that requires grad in a process (TORCH_WARN_ONCE), also
    with every warning shown; each side runs in a fresh process, so the once is the same."""
    import subprocess
    import sys

    program = ("import warnings\nwarnings.simplefilter('always')\ny = torch.ones(1, requires_grad=True) * 2\n"
               "print(float(y), float(y.sum()))\n")

    def warned(module: str) -> list[str]:
        done = subprocess.run([sys.executable, "-c", f"import {module} as torch\n" + program], capture_output=True,
                              text=True, check=True)
        return [line.split(": ", 1)[1].split(" (Triggered")[0] for line in done.stderr.splitlines()
                if "Warning: " in line]
    expected = warned("torch")
    assert expected == ["UserWarning: Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior."]
    assert warned("engine") == expected
