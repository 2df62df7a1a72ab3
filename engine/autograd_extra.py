"""The rest of `torch.autograd`: the functional API (jacobian, hessian, vjp, jvp, hvp, vhp), custom
`Function`s, `gradcheck`/`gradgradcheck`, and `forward_ad`.

Second derivatives come from the one derivative table: a first gradient taken with create_graph=True is a
graph of table ops (the rules ran on Tensors), and a batched reverse sweep over that graph gives a whole
Hessian at once. Forward-mode products (jvp) use the double-VJP trick: g(u) = Jᵀu is linear in u, so its
own VJP with v is J v — the transposed VJP rules, with no second set of rules.
"""
from __future__ import annotations

import warnings
from types import SimpleNamespace

import numpy as np

from engine import functional as _functional
from engine.graph import pullback
from engine.tensor import Tensor, _as_operand, guard_shape, no_grad


# --- functional API -------------------------------------------------------------------------------------------
def _tensors(value, what: str) -> tuple[bool, tuple]:
    """A Tensor or a tuple of Tensors (PyTorch's TypeError otherwise), and whether it was a single one."""
    single = isinstance(value, Tensor)
    items = (value,) if single else tuple(value)
    for item in items:
        if not isinstance(item, Tensor):
            raise TypeError(f"The {what} must be either a Tensor or a tuple of Tensors but the "
                            f"value at index 0 has type {type(item).__name__}.")
    return single, items


def _inputs(inputs, name: str) -> tuple[bool, tuple]:
    single, items = _tensors(inputs, f"inputs given to {name}")
    return single, tuple(x.detach().requires_grad_(True) if x.is_floating_point() else x.detach() for x in items)


def _outputs(value, name: str) -> tuple[bool, tuple]:
    return _tensors(value, f"outputs of the user-provided function given to {name}")


def _pull(y: Tensor, x: Tensor, cotangents: np.ndarray, nbatch: int, retain_graph: bool = True) -> np.ndarray:
    """The cotangents pulled back from y to x (zeros where y does not depend on x)."""
    if not y.requires_grad or not x.requires_grad:
        return np.zeros(cotangents.shape[:nbatch] + x._data.shape, dtype=x._data.dtype)
    return pullback(y._grad_edge(), cotangents, [x._grad_edge()], nbatch=nbatch, retain_graph=retain_graph)[0]


def _wrap(array, like: Tensor) -> Tensor:
    return Tensor._make(np.array(array, dtype=like._data.dtype))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """`torch.autograd.functional.jacobian`: d func(inputs) / d inputs, shaped output.shape + input.shape
    (tuples of them for tuple inputs or outputs)."""
    if strategy not in ("reverse-mode", "forward-mode"):
        raise RuntimeError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                           'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                           'Otherwise, prefer to use "reverse-mode".')
    if create_graph:
        return _jacobian_graph(func, inputs)
    single_in, xs = _inputs(inputs, "jacobian")
    single_out, ys = _outputs(func(*xs), "jacobian")
    rows = tuple(tuple(_functional.jacobian_of(y, x, retain_graph=True) for x in xs) for y in ys)
    return _shape_result(rows, single_in, single_out)


def _shape_result(rows, single_in: bool, single_out: bool):
    if single_out:
        rows = rows[0]
        return rows[0] if single_in else rows
    return tuple(r[0] for r in rows) if single_in else rows


def _jacobian_graph(func, inputs):
    """The Jacobian with a graph (create_graph=True): one create_graph VJP per output element."""
    from engine.autograd import grad

    single_in, xs = _inputs(inputs, "jacobian")
    single_out, ys = _outputs(func(*xs), "jacobian")
    rows = []
    for y in ys:
        for x in xs:  # one gradient per output element, each input-sized: the Jacobian's size, vetted first
            guard_shape(tuple(y.shape) + tuple(x.shape))
        flat = y.reshape(-1)
        per_input = [[] for _ in xs]
        for k in range(flat.numel()):
            gs = grad(flat[k], xs, retain_graph=True, create_graph=True, allow_unused=True) if y.requires_grad \
                else (None,) * len(xs)
            for i, (g, x) in enumerate(zip(gs, xs)):
                per_input[i].append(g if g is not None else Tensor._make(np.zeros_like(x._data)))
        rows.append(tuple(_stack(parts, tuple(y.shape) + tuple(x.shape)) for parts, x in zip(per_input, xs)))
    return _shape_result(tuple(rows), single_in, single_out)


def _stack(parts, shape):
    from engine.tensor import stack

    if not parts:
        return Tensor._make(np.zeros(shape, dtype=np.float32))
    return stack(parts).reshape(shape)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """`torch.autograd.functional.hessian`: the second derivatives of a scalar function, shaped
    input.shape + input.shape (a tuple of tuples for tuple inputs). The gradient is recorded once with
    create_graph=True, then one batched reverse sweep over that graph gives every row."""
    from engine.autograd import grad

    single_in, xs = _inputs(inputs, "hessian")
    out = func(*xs)
    if not isinstance(out, Tensor):
        raise RuntimeError("The function given to hessian should return a single Tensor")
    if out.numel() != 1:
        raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
    if not out.requires_grad:
        blocks = tuple(tuple(Tensor._make(np.zeros(x._data.shape + z._data.shape, dtype=x._data.dtype))
                             for z in xs) for x in xs)
        return blocks[0][0] if single_in else blocks
    gs = grad(out.reshape(()) if out.ndim else out, xs, create_graph=True, allow_unused=True)
    if create_graph:
        blocks = tuple(tuple(_jacobian_graph_of(g, x, z) for z in xs) for g, x in zip(gs, xs))
    else:
        blocks = tuple(tuple(_functional.jacobian_of(g, z, retain_graph=True) if g is not None else
                             Tensor._make(np.zeros(x._data.shape + z._data.shape, dtype=x._data.dtype))
                             for z in xs) for g, x in zip(gs, xs))
    return blocks[0][0] if single_in else blocks


def _jacobian_graph_of(g, x, z):
    from engine.autograd import grad

    if g is None or not g.requires_grad:
        return Tensor._make(np.zeros(x._data.shape + z._data.shape, dtype=x._data.dtype))
    guard_shape(tuple(x.shape) + tuple(z.shape))
    flat = g.reshape(-1)
    parts = []
    for k in range(flat.numel()):
        (d,) = grad(flat[k], z, retain_graph=True, create_graph=True, allow_unused=True)
        parts.append(d if d is not None else Tensor._make(np.zeros_like(z._data)))
    return _stack(parts, tuple(x.shape) + tuple(z.shape))


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
    from engine.autograd import grad

    single_in, xs = _inputs(inputs, "vjp")
    single_out, ys = _outputs(func(*xs), "vjp")
    vs = _check_v(v, ys, "vjp", "user-provided function returns")
    pairs = [(y, vi) for y, vi in zip(ys, vs) if y.requires_grad]
    if pairs:
        gs = grad([y for y, _ in pairs], xs, [vi for _, vi in pairs], create_graph=create_graph,
                  allow_unused=True, materialize_grads=True)
    else:
        gs = tuple(Tensor._make(np.zeros_like(x._data)) for x in xs)
    outs = tuple(y if create_graph else y.detach() for y in ys)
    return (outs[0] if single_out else outs), (gs[0] if single_in else gs)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """`torch.autograd.functional.jvp`: (func(inputs), J·v), by the double-VJP trick on the reverse rules."""
    single_in, xs = _inputs(inputs, "jvp")
    if v is None:
        if len(xs) != 1 or xs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                               "single Tensor with a single element.")
        vs = (Tensor._make(np.ones(xs[0]._data.shape, dtype=xs[0]._data.dtype)),)
    else:
        vs = (v,) if isinstance(v, Tensor) else tuple(v)
        for i, (vi, x) in enumerate(zip(vs, xs)):
            if vi._data.shape != x._data.shape:
                raise RuntimeError(f"Mismatch in shape: v[{i}] has a shape of {vi.shape!r} and input[{i}] has a "
                                   f"shape of {x.shape!r}.")
    single_out, ys = _outputs(func(*xs), "jvp")
    tangents = tuple(_jvp_of(y, xs, vs, create_graph) for y in ys)
    outs = tuple(y if create_graph else y.detach() for y in ys)
    return (outs[0] if single_out else outs), (tangents[0] if single_out else tangents)


def _jvp_of(y: Tensor, xs: tuple, vs: tuple, create_graph: bool) -> Tensor:
    """J·v for one output: g(u) = Jᵀu recorded with create_graph, then pulled back along v to u."""
    from engine.autograd import grad

    if not y.requires_grad:
        return Tensor._make(np.zeros_like(y._data))
    u = Tensor._make(np.zeros_like(y._data), requires_grad=True)
    gs = grad(y, xs, u, create_graph=True, allow_unused=True)
    used = [(g, vi) for g, vi in zip(gs, vs) if g is not None and g.requires_grad]
    if not used:
        return Tensor._make(np.zeros_like(y._data))
    if create_graph:
        (t,) = grad([g for g, _ in used], u, [vi for _, vi in used], create_graph=True, allow_unused=True,
                    materialize_grads=True)
        return t
    total = None
    for g, vi in used:
        pulled = _pull(g, u, vi._data.astype(g._data.dtype), 0)
        total = pulled if total is None else total + pulled
    return _wrap(total, y)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """`torch.autograd.functional.vhp`: (func(inputs), vᵀ·H)."""
    return _hessian_product(func, inputs, v, create_graph, "vhp")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """`torch.autograd.functional.hvp`: (func(inputs), H·v) (H is symmetric: the same numbers as vhp)."""
    return _hessian_product(func, inputs, v, create_graph, "hvp")


def _hessian_product(func, inputs, v, create_graph: bool, name: str):
    from engine.autograd import grad

    single_in, xs = _inputs(inputs, name)
    out = func(*xs)
    if not isinstance(out, Tensor):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if out.numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should contain a single element")
    if v is None:
        if len(xs) != 1 or xs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                               "single Tensor with a single element.")
        vs = (Tensor._make(np.ones(xs[0]._data.shape, dtype=xs[0]._data.dtype)),)
    else:
        vs = (v,) if isinstance(v, Tensor) else tuple(v)
    zeros = tuple(Tensor._make(np.zeros_like(x._data)) for x in xs)
    if not out.requires_grad:
        return (out.detach(), zeros[0] if single_in else zeros)
    gs = grad(out, xs, create_graph=True, allow_unused=True)
    used = [(g, vi) for g, vi in zip(gs, vs) if g is not None and g.requires_grad]
    if not used:
        result = zeros
    else:
        result = grad([g for g, _ in used], xs, [vi for _, vi in used], create_graph=create_graph,
                      allow_unused=True, materialize_grads=True)
    value = out if create_graph else out.detach()
    return value, (result[0] if single_in else tuple(result))


functional = SimpleNamespace(jacobian=jacobian, hessian=hessian, vjp=vjp, jvp=jvp, hvp=hvp, vhp=vhp)


from engine import forward_ad  # noqa: E402,F401
from engine.custom_function import Function, gradcheck, gradgradcheck  # noqa: E402,F401
