"""Random compositions of the engine's operations agree with central finite differences (float64),
and `jacobian`, `vjp` and `backward` agree with each other."""
import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from programs import build, programs, shapes

import engine as torch


def leaf(rng, shape):
    return torch.tensor(rng.uniform(-1.5, 1.5, size=shape), dtype=torch.float64, requires_grad=True)


@settings(max_examples=150, deadline=None)
@given(programs, shapes, st.booleans(), st.integers(0, 2**32 - 1))
def test_gradients_match_finite_differences(program, shape, broadcast_y, seed):
    rng = np.random.default_rng(seed)
    x = leaf(rng, shape)
    y = leaf(rng, (1, shape[1]) if broadcast_y else shape)
    out = build(program, x, y)
    assume(np.abs(out.detach().numpy()).max() < 1e3)  # keep exp-of-exp overflow out of reach of FD
    weights = torch.tensor(rng.uniform(0.5, 1.5, size=tuple(out.shape)), dtype=torch.float64)
    (out * weights).sum().backward()
    # central differences with eps 1e-6 cannot follow a slope in the thousands (sin(exp(13)): the step moves exp by
    # about one) — such a point checks the test, not the engine
    assume(all(t.grad is None or np.abs(t.grad.numpy()).max() < 1e3 for t in (x, y)))

    def f(xv, yv):
        return float((build(program, torch.tensor(xv), torch.tensor(yv)) * weights).sum())

    eps = 1e-6
    for leaf_t, which in ((x, 0), (y, 1)):
        base = [x.detach().numpy().copy(), y.detach().numpy().copy()]
        numeric = np.zeros(leaf_t.shape)
        for idx in np.ndindex(*leaf_t.shape):
            plus, minus = [a.copy() for a in base], [a.copy() for a in base]
            plus[which][idx] += eps
            minus[which][idx] -= eps
            numeric[idx] = (f(*plus) - f(*minus)) / (2 * eps)
        grad = np.zeros(leaf_t.shape) if leaf_t.grad is None else leaf_t.grad.numpy()
        np.testing.assert_allclose(grad, numeric, rtol=1e-4, atol=1e-6 * max(1.0, np.abs(numeric).max()))


@settings(max_examples=80, deadline=None)
@given(programs, shapes, st.integers(0, 2**32 - 1))
def test_jacobian_vjp_and_backward_agree(program, shape, seed):
    rng = np.random.default_rng(seed)
    x0 = leaf(rng, shape)
    y = leaf(rng, shape).detach()

    def f(x):
        return build(program, x, y)

    J = torch.autograd.functional.jacobian(f, x0).numpy()
    out = f(x0.detach())
    # an overflowed output (exp of exp) makes J's cells 0·inf = nan where v·J's sum has inf: no identity to check
    assume(np.isfinite(out.numpy()).all() and np.isfinite(J).all())
    v = rng.uniform(-1, 1, size=tuple(out.shape))
    _, vjp = torch.autograd.functional.vjp(f, x0, torch.tensor(v))
    expected = np.tensordot(v, J, axes=v.ndim)
    np.testing.assert_allclose(vjp.numpy(), expected, rtol=1e-10, atol=1e-12)

    x = x0.detach().requires_grad_()
    f(x).backward(torch.tensor(v))
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-10, atol=1e-12)
