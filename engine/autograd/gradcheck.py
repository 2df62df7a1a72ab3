"""`torch.autograd.gradcheck`: `gradcheck` and `gradgradcheck`, the engine's gradients (reverse mode, and forward
mode on request) against central finite differences, with PyTorch's tolerances and messages."""
from __future__ import annotations

import warnings

import numpy as np

from engine.autograd import forward_ad
from engine.backward import gradients
from engine.printing import format_tensor
from engine.tensor import Tensor, guard_shape

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """What gradcheck raises when analytical and numerical gradients differ (a RuntimeError, as PyTorch's)."""


def _as_tuple(x) -> tuple:
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _numerical(func, inputs, i, out_index, eps):
    x = inputs[i]
    flat = x._data.reshape(-1)
    out0 = _as_tuple(func(*inputs))[out_index]
    columns = []
    for k in range(flat.size):
        orig = flat[k]
        flat[k] = orig - eps
        lo = _as_tuple(func(*inputs))[out_index]._data.astype(np.float64).reshape(-1)
        flat[k] = orig + eps
        hi = _as_tuple(func(*inputs))[out_index]._data.astype(np.float64).reshape(-1)
        flat[k] = orig
        columns.append((hi - lo) / (2 * eps))
    return np.array(columns).reshape(flat.size, out0.numel())


def _analytical(func, inputs, i, out_index):
    """One row of the Jacobian per output element, as PyTorch builds it: a backward sweep of the whole output
    with a one-hot grad_output (so a custom backward sees (1, 0, 0), (0, 1, 0), …, and an explanation of the
    sweep names the output and its v as they are)."""
    out = _as_tuple(func(*inputs))[out_index]
    x = inputs[i]
    rows = []
    for k in range(out.numel()):
        if not out.requires_grad:
            rows.append(np.zeros(x._data.size))
            continue
        one_hot = np.zeros(out._data.size, dtype=out._data.dtype)
        one_hot[k] = 1
        (g,) = gradients(out, x, Tensor._make(one_hot.reshape(out._data.shape)), retain_graph=True,
                         allow_unused=True, api="autograd.gradcheck")
        rows.append(np.zeros(x._data.size) if g is None else g._data.astype(np.float64).reshape(-1))
    return np.array(rows).T.reshape(x._data.size, out.numel())


def _forward_mode(func, inputs, i, out_index):
    """The Jacobian as forward-mode AD gives it: one dual level per element of input `i`, with that element's
    one-hot tangent (laid out as `_numerical`'s, input × output)."""
    x = inputs[i]
    columns = []
    for k in range(x._data.size):
        tangent = np.zeros_like(x._data)
        tangent.reshape(-1)[k] = 1
        with forward_ad.dual_level():
            dual = forward_ad.make_dual(x, Tensor._make(tangent))
            out = _as_tuple(func(*inputs[:i], dual, *inputs[i + 1:]))[out_index]
            t = forward_ad.unpack_dual(out).tangent
        columns.append(np.zeros(out.numel()) if t is None else t._data.astype(np.float64).reshape(-1))
    return np.array(columns).reshape(x._data.size, -1)


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False, masked=None) -> bool:
    """`torch.autograd.gradcheck`: compare the engine's gradients of `func` at `inputs` — reverse mode, and forward
    mode with `check_forward_ad=True` — with central finite differences (PyTorch's eps, atol, rtol and messages)."""
    inputs = _as_tuple(inputs)
    for i, x in enumerate(inputs):
        if isinstance(x, Tensor) and x.requires_grad and x._data.dtype != np.float64:
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating "
                          "point or complex. ", UserWarning, stacklevel=2)
    if not any(isinstance(x, Tensor) and x.requires_grad for x in inputs):
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them "
                         "have requires_grad=True.")
    outputs = _as_tuple(func(*inputs))
    for j, out in enumerate(outputs):
        for i, x in enumerate(inputs):
            if not (isinstance(x, Tensor) and x.requires_grad):
                continue
            guard_shape((x._data.size, out.numel()))  # the Jacobians are input × output, built in full
            numerical = _numerical(func, inputs, i, j, eps)
            modes = [("", _analytical)] if check_backward_ad else []
            modes += [(" computed with forward mode", _forward_mode)] if check_forward_ad else []
            for mode, jacobian in modes:
                analytical = jacobian(func, inputs, i, j)
                if not np.allclose(analytical, numerical, rtol=rtol, atol=atol):
                    if not raise_exception:
                        return False
                    raise GradcheckError(f"Jacobian{mode} mismatch for output {j} with respect to input {i},\n"
                                         f"numerical:{_show(numerical)}\nanalytical:{_show(analytical)}\n")
    return True


def _show(array: np.ndarray) -> str:
    return format_tensor(array.astype(np.float64))


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, gen_non_contig_grad_outputs=False,
                  raise_exception=True, nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False) -> bool:
    """`torch.autograd.gradgradcheck`: gradcheck of the gradient itself (second derivatives, through
    create_graph=True)."""
    inputs = _as_tuple(inputs)
    outputs = _as_tuple(func(*inputs))
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(Tensor._make(rng.standard_normal(o._data.shape).astype(o._data.dtype),
                                          requires_grad=True) for o in outputs)
    else:
        grad_outputs = tuple(g.detach().requires_grad_(True) for g in _as_tuple(grad_outputs))
    n = len(inputs)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]

    def first_grads(*args):
        xs, vs = args[:n], args[n:]
        outs = _as_tuple(func(*xs))
        gs = gradients(outs, [xs[i] for i in diff], vs, create_graph=True, allow_unused=True, materialize_grads=True,
                       api="autograd.gradgradcheck")
        return gs

    return gradcheck(first_grads, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)

