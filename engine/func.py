"""`torch.func`: function transforms (grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian).

Built on the same reverse sweeps as `torch.autograd`: jvp and jacfwd use the double-VJP trick (the VJP of
the linear map u ↦ Jᵀu is J·v), so forward mode needs no second set of rules. `vmap` is not provided.
"""
from __future__ import annotations

import numpy as np

from engine import autograd_extra as _af
from engine.tensor import Tensor, guard_shape, guard_work

__all__ = ["grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "vjp", "vmap"]


def _argnums_tuple(argnums):
    return (argnums,) if isinstance(argnums, int) else tuple(argnums)


def _prepare(args, argnums):
    args = list(args)
    for i in _argnums_tuple(argnums):
        guard_work()  # argnums come from the caller: as many as it likes
        if not isinstance(args[i], Tensor):
            raise RuntimeError(f"Expected input at *args[{i}] to be a Tensor")
        args[i] = args[i].detach().requires_grad_(True)
    return args


def grad_and_value(func, argnums=0, has_aux=False):
    """`torch.func.grad_and_value(func)(*args)`: (d func / d args[argnums], func(*args))."""
    from engine.autograd import grad as autograd_grad

    def wrapper(*args, **kwargs):
        args = _prepare(args, argnums)
        result = func(*args, **kwargs)
        output, aux = result if has_aux else (result, None)
        if not isinstance(output, Tensor) or output.numel() != 1 or output.ndim != 0 and False:
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                               f"tensor with {getattr(output, 'ndim', 0)} dims. Maybe you wanted to use the vjp "
                               "or jacrev APIs instead?")
        if output.ndim != 0:
            raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
                               f"with {output.ndim} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
        nums = _argnums_tuple(argnums)
        inputs = [args[i] for i in nums]
        if output.requires_grad:
            grads = autograd_grad(output, inputs, allow_unused=True, materialize_grads=True)
        else:
            grads = tuple(Tensor._make(np.zeros_like(x._data)) for x in inputs)
        grads = grads[0] if isinstance(argnums, int) else tuple(grads)
        value = output.detach()
        return (grads, (value, aux)) if has_aux else (grads, value)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """`torch.func.grad(func)(*args)`: the gradient of a scalar function."""
    inner = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        grads, value = inner(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads
    return wrapper


def vjp(func, *primals, has_aux=False):
    """`torch.func.vjp(func, *primals)`: (func(*primals), vjp_fn) where vjp_fn(v) gives vᵀJ per primal."""
    from engine.autograd import grad as autograd_grad

    xs = _prepare(primals, tuple(range(len(primals))))
    result = func(*xs)
    output, aux = result if has_aux else (result, None)

    def vjp_fn(*cotangents):
        outs = output if isinstance(output, tuple) else (output,)
        cots = cotangents if isinstance(output, tuple) or len(cotangents) != 1 else cotangents
        pairs = [(o, c) for o, c in zip(outs, cots) if o.requires_grad]
        if not pairs:
            return tuple(Tensor._make(np.zeros_like(x._data)) for x in xs)
        return autograd_grad([o for o, _ in pairs], xs, [c for _, c in pairs], retain_graph=True,
                             allow_unused=True, materialize_grads=True)
    value = tuple(o.detach() for o in output) if isinstance(output, tuple) else output.detach()
    return (value, vjp_fn, aux) if has_aux else (value, vjp_fn)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """`torch.func.jvp(func, primals, tangents)`: (func(*primals), J·tangents)."""
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid "
                           "to call f(*primals).")
    xs = _prepare(primals, tuple(range(len(primals))))
    result = func(*xs)
    output, aux = result if has_aux else (result, None)
    outs = output if isinstance(output, tuple) else (output,)
    tangents_out = tuple(_af._jvp_of(y, tuple(xs), tangents, False) for y in outs)
    value = tuple(o.detach() for o in outs)
    if not isinstance(output, tuple):
        value, tangents_out = value[0], tangents_out[0]
    return (value, tangents_out, aux) if has_aux else (value, tangents_out)


def jacrev(func, argnums=0, *, has_aux=False):
    """`torch.func.jacrev(func)(*args)`: the Jacobian by reverse mode (one batched sweep)."""
    def wrapper(*args):
        nums = _argnums_tuple(argnums)
        args = _prepare(args, nums)
        y = func(*args)
        jac = tuple(_af._functional.jacobian_of(y, args[i], retain_graph=True) for i in nums)
        return jac[0] if isinstance(argnums, int) else jac
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """`torch.func.jacfwd(func)(*args)`: the Jacobian by forward mode, one JVP per input element (the
    double-VJP trick: the same numbers as jacrev, cheaper in PyTorch when inputs are few)."""
    def wrapper(*args):
        nums = _argnums_tuple(argnums)
        args = _prepare(args, nums)
        y = func(*args)
        results = []
        for i in nums:
            x = args[i]
            u = Tensor._make(np.zeros_like(y._data), requires_grad=True)
            from engine.autograd import grad as autograd_grad

            if not y.requires_grad:
                results.append(Tensor._make(np.zeros(y._data.shape + x._data.shape, dtype=y._data.dtype)))
                continue
            (g,) = autograd_grad(y, x, u, create_graph=True, allow_unused=True, materialize_grads=True)
            n = x._data.size
            guard_shape((n,) + x._data.shape)  # one seed per input element, then output × input: vetted first
            guard_shape(y._data.shape + x._data.shape)
            seeds = np.eye(n, dtype=x._data.dtype).reshape((n,) + x._data.shape)
            cols = _af._pull(g, u, seeds, 1)  # (n,) + y.shape: column k is J e_k
            jac = np.moveaxis(cols.reshape((n,) + y._data.shape), 0, -1).reshape(y._data.shape + x._data.shape)
            results.append(Tensor._make(np.array(jac, dtype=y._data.dtype)))
        return results[0] if isinstance(argnums, int) else tuple(results)
    return wrapper


def hessian(func, argnums=0):
    """`torch.func.hessian(func)(*args)`: the Hessian (jacfwd of jacrev in PyTorch; here one create_graph
    gradient and one batched sweep over it)."""
    def wrapper(*args):
        nums = _argnums_tuple(argnums)
        if len(nums) != 1:
            raise NotImplementedError("torch.func.hessian with several argnums is not supported by this engine")
        i = nums[0]

        def of_one(x):
            return func(*args[:i], x, *args[i + 1:])
        return _af.hessian(of_one, args[i])
    return wrapper


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Not provided by this engine (raises NotImplementedError when called): PyTorch's vmap runs each op once on
    a batched tensor, which this engine's ops and printouts do not model. See docs/api.md."""
    raise NotImplementedError("torch.func.vmap is not supported by this engine (see docs/api.md, 'Not supported'); "
                              "call the function in a loop over the batch and torch.stack the results")
