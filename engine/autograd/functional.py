"""`torch.autograd.functional`: jacobian, hessian, vjp, jvp, hvp, vhp — all through the one backward.

A whole Jacobian is one batched reverse sweep per block of rows (`jacobian_of`): the one-hot cotangents go
through the graph stacked along a leading batch axis, instead of one backward per output element.

Second derivatives come from the one derivative table: a first gradient taken with create_graph=True is a
graph of table ops (the rules ran on Tensors), and a batched reverse sweep over that graph gives a whole
Hessian at once. Forward-mode products (jvp) use the double-VJP trick: g(u) = Jᵀu is linear in u, so its
own VJP with v is J v — the transposed VJP rules, with no second set of rules.
"""
from __future__ import annotations

import numpy as np

from engine.backward import gradients, run_backward
from engine.grad_mode import enable_grad
from engine.methods.shape import stack
from engine.tensor import Tensor, guard_shape

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def pull(y: Tensor, x: Tensor, cotangents: np.ndarray, nbatch: int, api: str, retain_graph: bool = True) -> np.ndarray:
    """The cotangents (`nbatch` leading batch axes) pulled back from y to x by the one backward, as an array
    (zeros where y does not depend on x)."""
    if not y.requires_grad or not x.requires_grad:
        return np.zeros(cotangents.shape[:nbatch] + x._data.shape, dtype=x._data.dtype)
    (g,) = run_backward([y], [cotangents], inputs=[x], retain_graph=retain_graph, accumulate=False, nbatch=nbatch,
                        api=api)
    return np.zeros(cotangents.shape[:nbatch] + x._data.shape, dtype=x._data.dtype) if g is None else g._data


CHUNK_BYTES = 1 << 20  # cotangent block per sweep: small enough for the allocator to reuse between blocks


def jacobian_of(y: Tensor, x: Tensor, retain_graph: bool = False, api: str = "jacobian") -> Tensor:
    """d y / d x for a recorded y, shaped `y.shape + x.shape`: the one-hot cotangents go through the graph as a
    batch, in blocks of rows — one sweep per block instead of one per output element, and blocks small enough
    that their memory is recycled rather than faulted in afresh (fresh pages cost more than the arithmetic)."""
    m, out_shape = y._data.size, y._data.shape
    guard_shape(out_shape + x._data.shape)  # the Jacobian is output × input: vetted before it is made
    result = np.empty((m,) + x._data.shape, dtype=x._data.dtype)
    rows = max(1, CHUNK_BYTES // max(1, max(m, x._data.size) * y._data.itemsize))
    for start in range(0, m, rows):
        stop = min(m, start + rows)
        seeds = np.zeros((stop - start, m), dtype=y._data.dtype)
        seeds[np.arange(stop - start), np.arange(start, stop)] = 1
        result[start:stop] = pull(y, x, seeds.reshape((stop - start,) + out_shape), 1, api,
                                  retain_graph=retain_graph or stop < m)
    return Tensor._make(result.reshape(out_shape + x._data.shape))


def _tensors(value, what: str) -> tuple[bool, tuple]:
    """A Tensor or a tuple of Tensors (PyTorch's TypeError otherwise), and whether it was a single one."""
    single = isinstance(value, Tensor)
    items = (value,) if single else tuple(value)
    for item in items:
        if not isinstance(item, Tensor):
            raise TypeError(f"The {what} must be either a Tensor or a tuple of Tensors but the "
                            f"value at index 0 has type {type(item).__name__}.")
    return single, items


def _inputs(inputs, name: str, create_graph: bool = False) -> tuple[bool, tuple]:
    """The function's inputs as PyTorch's `_grad_preprocess` makes them: with create_graph, an input that
    requires grad stays connected to its graph (a view of it), so the result can be differentiated for it;
    otherwise a fresh leaf."""
    single, items = _tensors(inputs, f"inputs given to {name}")
    return single, tuple(x.view_as(x) if create_graph and x.requires_grad else
                         x.detach().requires_grad_(True) if x.is_floating_point() else x.detach() for x in items)


def _outputs(value, name: str) -> tuple[bool, tuple]:
    return _tensors(value, f"outputs of the user-provided function given to {name}")


def _zeros(shape, like: Tensor) -> Tensor:
    return Tensor._make(np.zeros(shape, dtype=like._data.dtype))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """`torch.autograd.functional.jacobian`: d func(inputs) / d inputs, shaped output.shape + input.shape
    (tuples of them for tuple inputs or outputs). Without create_graph, one batched sweep per block of rows;
    with it, one differentiable gradient per output element."""
    if strategy not in ("reverse-mode", "forward-mode"):
        raise RuntimeError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                           'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                           'Otherwise, prefer to use "reverse-mode".')
    if strict and vectorize:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not supported "
                           "together. Please either set `strict=False` or `vectorize=False`.")
    api = "autograd.functional.jacobian"
    single_in, xs = _inputs(inputs, "jacobian", create_graph)
    with enable_grad():
        single_out, ys = _outputs(func(*xs), "jacobian")
        if strict:
            _check_strict(ys, xs, api)
        if create_graph:
            rows = tuple(tuple(jacobian_rows(y, x, api) for x in xs) for y in ys)
        else:
            rows = tuple(tuple(jacobian_of(y, x, retain_graph=True, api=api) for x in xs) for y in ys)
    return _shape_result(rows, single_in, single_out)


def _check_strict(ys: tuple, xs: tuple, api: str) -> None:
    """`strict=True`: PyTorch's error for an output that is not computed differentiably from the inputs, or that
    does not depend on one of them (a Jacobian block of zeros that is structural, not numerical)."""
    for i, y in enumerate(ys):
        if not y.requires_grad:
            raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The outputs must "
                               "be computed in a differentiable manner from the input when running in strict mode.")
        seed = Tensor._make(np.ones(y._data.shape, dtype=y._data.dtype))
        for j, g in enumerate(gradients(y, xs, seed, retain_graph=True, allow_unused=True, api=api)):
            if g is None:
                raise RuntimeError(f"Output {i} of the user-provided function is independent of input {j}. This is not "
                                   "allowed in strict mode.")


def _shape_result(rows, single_in: bool, single_out: bool):
    if single_out:
        rows = rows[0]
        return rows[0] if single_in else rows
    return tuple(r[0] for r in rows) if single_in else rows


def jacobian_rows(y: Tensor, x: Tensor, api: str) -> Tensor:
    """d y / d x with a graph of its own: one create_graph gradient per element of y (what a Jacobian that
    will be differentiated again costs), stacked."""
    shape = tuple(y.shape) + tuple(x.shape)
    guard_shape(shape)  # one input-sized gradient per output element: the Jacobian's size, vetted first
    if not y.requires_grad or not x.requires_grad:
        return _zeros(shape, x)
    flat = y.reshape(-1)
    parts = [gradients(flat[k], x, retain_graph=True, create_graph=True, materialize_grads=True, api=api)[0]
             for k in range(flat.numel())]
    return stack(parts).reshape(shape) if parts else _zeros(shape, x)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """`torch.autograd.functional.hessian`: the second derivatives of a scalar function, shaped
    input.shape + input.shape (a tuple of tuples for tuple inputs). The gradient is recorded once with
    create_graph=True, then batched reverse sweeps over that graph give every row."""
    api = "autograd.functional.hessian"
    single_in, xs = _inputs(inputs, "hessian", create_graph)
    with enable_grad():
        out = func(*xs)
        if not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        if not out.requires_grad:
            blocks = tuple(tuple(_zeros(x._data.shape + z._data.shape, x) for z in xs) for x in xs)
            return blocks[0][0] if single_in else blocks
        gs = gradients(out.reshape(()) if out.ndim else out, xs, create_graph=True, allow_unused=True, api=api)
        jac = jacobian_rows if create_graph else (lambda g, z, api: jacobian_of(g, z, retain_graph=True, api=api))
        blocks = tuple(tuple(jac(g, z, api) if g is not None else _zeros(x._data.shape + z._data.shape, x)
                             for z in xs) for g, x in zip(gs, xs))
    return blocks[0][0] if single_in else blocks


def _check_v(v, ys, name: str, what: str) -> tuple:
    if v is None:
        if len(ys) != 1 or ys[0].numel() != 1:
            raise RuntimeError(f"The vector v can only be None if the {what} a single Tensor with a single "
                               "element.")
        return (Tensor._make(np.ones(ys[0]._data.shape, dtype=ys[0]._data.dtype)),)
    vs = (v,) if isinstance(v, Tensor) else tuple(v)
    for i, (vi, y) in enumerate(zip(vs, ys)):
        if vi._data.shape != y._data.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {vi.shape!r} and output[{i}] "
                               f"has a shape of {y.shape!r}.")
    return vs


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """`torch.autograd.functional.vjp`: (func(inputs), vᵀ·J)."""
    single_in, xs = _inputs(inputs, "vjp", create_graph)
    with enable_grad():
        single_out, ys = _outputs(func(*xs), "vjp")
        vs = _check_v(v, ys, "vjp", "user-provided function returns")
        pairs = [(y, vi) for y, vi in zip(ys, vs) if y.requires_grad]
        if pairs:
            gs = gradients([y for y, _ in pairs], xs, [vi for _, vi in pairs], create_graph=create_graph,
                           allow_unused=True, materialize_grads=True, api="autograd.functional.vjp")
        else:
            gs = tuple(Tensor._make(np.zeros_like(x._data)) for x in xs)
    outs = tuple(y if create_graph else y.detach() for y in ys)
    return (outs[0] if single_out else outs), (gs[0] if single_in else gs)


def _vectors(v, xs) -> tuple:
    """`v` as a tuple of tensors; None only for one single-element input, where it means 1 (as PyTorch)."""
    if v is not None:
        return (v,) if isinstance(v, Tensor) else tuple(v)
    if len(xs) != 1 or xs[0].numel() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                           "single Tensor with a single element.")
    return (Tensor._make(np.ones(xs[0]._data.shape, dtype=xs[0]._data.dtype)),)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """`torch.autograd.functional.jvp`: (func(inputs), J·v), by the double-VJP trick on the reverse rules."""
    single_in, xs = _inputs(inputs, "jvp", create_graph)
    vs = _vectors(v, xs)
    if v is not None:
        for i, (vi, x) in enumerate(zip(vs, xs)):
            if vi._data.shape != x._data.shape:
                raise RuntimeError(f"Mismatch in shape: v[{i}] has a shape of {vi.shape!r} and input[{i}] has a "
                                   f"shape of {x.shape!r}.")
    with enable_grad():
        single_out, ys = _outputs(func(*xs), "jvp")
        tangents = tuple(jvp_of(y, xs, vs, create_graph, "autograd.functional.jvp") for y in ys)
    outs = tuple(y if create_graph else y.detach() for y in ys)
    return (outs[0] if single_out else outs), (tangents[0] if single_out else tangents)


def jvp_of(y: Tensor, xs: tuple, vs: tuple, create_graph: bool, api: str) -> Tensor:
    """J·v for one output: g(u) = Jᵀu recorded with create_graph, then pulled back along v to u (two
    backward calls)."""
    if not y.requires_grad:
        return Tensor._make(np.zeros_like(y._data))
    u = Tensor._make(np.zeros_like(y._data), requires_grad=True)
    gs = gradients(y, xs, u, create_graph=True, allow_unused=True, api=api)
    used = [(g, vi) for g, vi in zip(gs, vs) if g is not None and g.requires_grad]
    if not used:
        return Tensor._make(np.zeros_like(y._data))
    (t,) = gradients([g for g, _ in used], u, [vi for _, vi in used], create_graph=create_graph,
                     allow_unused=True, materialize_grads=True, api=api)
    return t


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """`torch.autograd.functional.vhp`: (func(inputs), vᵀ·H)."""
    return _hessian_product(func, inputs, v, create_graph, "vhp")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """`torch.autograd.functional.hvp`: (func(inputs), H·v) (H is symmetric: the same numbers as vhp)."""
    return _hessian_product(func, inputs, v, create_graph, "hvp")


def _hessian_product(func, inputs, v, create_graph: bool, name: str):
    api = f"autograd.functional.{name}"
    single_in, xs = _inputs(inputs, name, create_graph)
    with enable_grad():
        out = func(*xs)
        if not isinstance(out, Tensor):
            raise RuntimeError(f"The function given to {name} should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {name} should contain a single "
                               "element")
        vs = _vectors(v, xs)
        zeros = tuple(Tensor._make(np.zeros_like(x._data)) for x in xs)
        if not out.requires_grad:
            return (out.detach(), zeros[0] if single_in else zeros)
        gs = gradients(out, xs, create_graph=True, allow_unused=True, api=api)
        used = [(g, vi) for g, vi in zip(gs, vs) if g is not None and g.requires_grad]
        if not used:
            result = zeros
        else:
            result = gradients([g for g, _ in used], xs, [vi for _, vi in used], create_graph=create_graph,
                               allow_unused=True, materialize_grads=True, api=api)
    value = out if create_graph else out.detach()
    return value, (result[0] if single_in else tuple(result))

