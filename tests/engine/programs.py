"""Random compositions of operations, written once and run on the engine or on real PyTorch."""
import numpy as np
from hypothesis import strategies as st

# Each step maps (current tensor, the leaves x and y) to a new tensor; inputs are kept away from kinks.
UNARY = [
    lambda t: t.exp() * 0.5,
    lambda t: t.sin(),
    lambda t: t.cos(),
    lambda t: t.tanh(),
    lambda t: t.sigmoid(),
    lambda t: (t * t + 1).log(),
    lambda t: (t * t + 1).sqrt(),
    lambda t: (t * t + 0.5) ** 1.5,
    lambda t: -t + 2,
    lambda t: 1 / (t * t + 1),
    lambda t: 2 - t,
    lambda t: t.softmax(-1),
    lambda t: t.log_softmax(0),
    lambda t: t.sum(dim=0, keepdim=True),
    lambda t: t.mean(dim=-1, keepdim=True),
    lambda t: t.transpose(0, 1),
    lambda t: t.t().t(),
    lambda t: t.reshape(-1).view(t.shape),
    lambda t: t[:, 1:] if t.shape[1] > 1 else t,
    lambda t: t[0:1] * t,
    lambda t: t.max(dim=1, keepdim=True).values * t,
    lambda t: t.clamp(-10, 10),
    lambda t: t.sum() * t,
    lambda t: t.mean() + t.max() + t.norm() * t,
    lambda t: t.abs() + 0.1 if bool((t.detach().abs() > 1e-3).all()) else t,
    lambda t: t.relu() if bool((t.detach().abs() > 1e-3).all()) else t,
]
BINARY = [
    lambda t, u: t + u,
    lambda t, u: t - u,
    lambda t, u: t * u,
    lambda t, u: t / (u * u + 1),
    lambda t, u: t ** 2 * u,
    lambda t, u: t @ u.t() if t.dim() == u.dim() == 2 and t.shape[1] == u.shape[1] else t * u,
    lambda t, u: t.maximum(u + 0.37),
]


def _broadcastable(a, b):
    try:
        np.broadcast_shapes(tuple(a), tuple(b))
        return True
    except ValueError:
        return False


def build(program, x, y):
    t = x
    for kind, index in program:
        if kind == "unary":
            t = UNARY[index % len(UNARY)](t)
        else:
            u = y if _broadcastable(t.shape, y.shape) else y.mean()
            t = BINARY[index % len(BINARY)](t, u)
    return t


programs = st.lists(st.tuples(st.sampled_from(["unary", "binary"]), st.integers(0, 100)), min_size=1, max_size=6)
shapes = st.tuples(st.integers(1, 3), st.integers(1, 4))


