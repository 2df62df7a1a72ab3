"""`torch.autograd.functional.jacobian` on functions whose reductions feed back into elementwise terms (batch axes
must stay first), including outputs large enough to be swept in several blocks."""
import numpy as np
import pytest

import engine

FUNCTIONS = {
    "sum-times-x": lambda t: t.sum() * t,
    "issue-benchmark": lambda t: (t + 1) ** 2 * t.sum(),
    "mean-max-norm": lambda t: t.mean() + t.max() + t.norm() * t,
    "softmax-rows": lambda t: t.softmax(-1) * t.sum(0, keepdim=True),
}


def numeric_jacobian(f, x: np.ndarray) -> np.ndarray:
    """Central differences in float64, shaped out.shape + x.shape."""
    out = f(engine.tensor(x)).numpy()
    J = np.zeros(out.shape + x.shape)
    for idx in np.ndindex(*x.shape):
        step = np.zeros_like(x)
        step[idx] = 1e-6
        J[(...,) + idx] = (f(engine.tensor(x + step)).numpy() - f(engine.tensor(x - step)).numpy()) / 2e-6
    return J


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("shape", [(1, 4), (4,), (2, 3), (3, 1)])
def test_jacobian_matches_finite_differences(name, shape):
    x = np.random.default_rng(0).uniform(-1, 1, size=shape)
    f = FUNCTIONS[name]
    J = engine.autograd.functional.jacobian(f, engine.tensor(x)).numpy()
    np.testing.assert_allclose(J, numeric_jacobian(f, x), rtol=1e-6, atol=1e-8)


def test_jacobian_in_several_blocks_matches_torch():
    torch = pytest.importorskip("torch")
    x = np.linspace(-1, 1, 600)
    ours = engine.autograd.functional.jacobian(FUNCTIONS["issue-benchmark"], engine.tensor(x)).numpy()
    theirs = torch.autograd.functional.jacobian(FUNCTIONS["issue-benchmark"], torch.tensor(x)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
