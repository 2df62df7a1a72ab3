"""The numeric Jacobian of one backward call, and what its structure is.

J = d vec(y) / d vec(x) is computed the way `engine.autograd.functional.jacobian_of` does it: every
one-hot cotangent at once, stacked on a leading batch axis, in one sweep of the
engine's backward over a copy of the recorded graph.
"""
from __future__ import annotations

import numpy as np

from engine.explain.replay import clone, ops_of, root_of
from engine.graph import AccumulateGrad, pullback

# What building the Jacobians of one call may cost, decided before anything is allocated: the entries of
# J (m × Σ n) and the work of the batched sweep (m one-hot rows through every node: m × Σ node sizes). A
# learner's 1000-element output through a few nodes is well inside; an m × m identity of seeds for a
# 10⁵-element output is not (1.19 GB measured). Beyond either, the explanation says so and shows vᵀJ,
# which costs one ordinary backward sweep.
MAX_ENTRIES = 2_000_000
MAX_WORK = 20_000_000


def jacobian_cost(nodes: list, out_shape: tuple, edges: list) -> tuple[int, int]:
    """(entries of every leaf's J, elements the batched sweep computes) for one call, from shapes only."""
    m = int(np.prod(out_shape, dtype=np.int64))
    entries = m * sum(int(edge.variable._data.size) for edge in edges)
    work = m * sum(int(np.size(node.out)) for node in ops_of(nodes))
    return entries, work


def affordable(nodes: list, out_shape: tuple, edges: list) -> bool:
    entries, work = jacobian_cost(nodes, out_shape, edges)
    return entries <= MAX_ENTRIES and work <= MAX_WORK


def one_hot_seeds(shape: tuple, dtype) -> np.ndarray:
    m = int(np.prod(shape, dtype=np.int64))
    return np.eye(m, dtype=dtype).reshape((m,) + tuple(shape))


def batched_pullback(nodes: list, copies: dict, seeds: np.ndarray, edges: list) -> list[np.ndarray]:
    """Rows d(seed·y)/dx for each seed (leading axis) and each leaf edge, flattened to (batch, n)."""
    root = root_of(nodes)  # a leaf's AccumulateGrad when backward was called on the leaf itself
    rows = pullback(copies.get(root, root), seeds, edges, nbatch=1, retain_graph=True)
    return [row.reshape(seeds.shape[0], -1) for row in rows]


def numeric_jacobians(nodes: list, out_shape: tuple, out_dtype, edges: list, roots: list | None = None
                      ) -> list[np.ndarray]:
    """One (m, n) Jacobian per leaf edge, in the graph's own dtypes (what backward computed with).

    `roots`: several outputs differentiated at once (their nodes, in order): J is their Jacobians stacked,
    rows of the first output first — the Jacobian of the outputs read as one vector."""
    if roots is None:
        return batched_pullback(nodes, clone(nodes), one_hot_seeds(out_shape, out_dtype), edges)
    copies = clone(nodes)
    blocks = []
    for root in roots:
        shape = np.shape(root.out) if type(root) is not AccumulateGrad else root.variable._data.shape
        seeds = one_hot_seeds(shape, out_dtype)
        rows = pullback(copies.get(root, root), seeds, edges, nbatch=1, retain_graph=True)
        blocks.append([row.reshape(seeds.shape[0], -1) for row in rows])
    return [np.concatenate([block[i] for block in blocks]) for i in range(len(edges))]


def structure(J: np.ndarray, *, tol: float = 0.0) -> dict:
    """Classify a Jacobian: undefined (a nan or inf entry), zero, scalar (1x1), identity, diagonal,
    constant, rows-equal, row (a scalar output), block-diagonal or dense.

    Returns {"kind", "shape", "nonzero", "blocks"} — blocks is (rows, cols) of each diagonal
    block for a block-diagonal matrix (e.g. a softmax along rows), else None.
    """
    m, n = J.shape
    nz = ~(np.abs(J) <= tol)   # nan counts as non-zero: it is not a zero derivative
    info = {"shape": [m, n], "nonzero": int(nz.sum()), "blocks": None}
    if not np.isfinite(J).all():
        return {**info, "kind": "undefined"}
    if not nz.any():
        return {**info, "kind": "zero"}
    if m == n == 1:
        return {**info, "kind": "scalar"}
    if m == n and m > 1 and not (nz & ~np.eye(m, dtype=bool)).any():
        diag = np.diag(J)
        kind = "identity" if np.all(diag == 1) else "diagonal"
        return {**info, "kind": kind}
    if m * n > 1 and np.all(J == J.flat[0]):
        return {**info, "kind": "constant"}
    if m > 1 and np.all(J == J[0]):
        return {**info, "kind": "rows-equal"}
    if m == 1:
        return {**info, "kind": "row"}
    rows, cols = np.nonzero(nz)
    for k in range(min(m, n), 1, -1):   # each non-zero inside its own diagonal block: O(nonzeros) per k
        if m % k or n % k:
            continue
        bm, bn = m // k, n // k
        if np.array_equal(rows // bm, cols // bn):
            return {**info, "kind": "block-diagonal", "blocks": [bm, bn]}
    return {**info, "kind": "dense"}


def close(value, expected, rtol: float = 1e-4, atol: float = 1e-5) -> bool:
    """Equal up to float32 rounding (or the tolerances given, atol scaled by the largest finite value);
    infinities and nans must be where backward has them."""
    value = np.asarray(value, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    if value.shape != expected.shape:
        return False
    finite = np.isfinite(expected)
    if not np.array_equal(np.isnan(value), np.isnan(expected)) or not np.array_equal(
            np.where(np.isinf(expected), expected, 0), np.where(np.isinf(value), value, 0)):
        return False
    scale = max(1.0, float(np.abs(expected[finite]).max(initial=0.0)))
    return bool(np.allclose(value[finite], expected[finite], rtol=rtol, atol=atol * scale))
