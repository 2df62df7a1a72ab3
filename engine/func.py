"""`torch.func`: function transforms (grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian).

Each call of a transform is a *level*. Its inputs are fresh leaves, or, for a tensor that already requires
grad (the input of an enclosing transform, a learner's parameter), a differentiable alias of it. The
function runs in grad mode and is differentiated with the one backward (`engine.backward.run_backward`),
recording the backward as a graph (`create_graph`) whenever the function's result reaches tensors from
outside the level, so that an enclosing transform or `backward` can differentiate the result again:
grad(grad(f)), jacrev(jacrev(f)), jacfwd(jacrev(f)), hessian. What a level returns keeps its graph only
where that graph reaches outside tensors; the rest is detached, as PyTorch's levels unwrap their results
(`has_aux` outputs included). Under an enclosing `no_grad` everything returned is detached.

jvp and jacfwd use the double-VJP trick (the VJP of the linear map u ↦ Jᵀu is J·v), so forward mode needs
no second set of rules. `vmap` (engine.batching) maps a function over slices of a batch.
"""
from __future__ import annotations

import weakref

import numpy as np

from engine import pytree
from engine.autograd.functional import jacobian_of, jacobian_rows, jvp_of, pull
from engine.backward import gradients
from engine.batching import vmap
from engine.grad_mode import enable_grad, is_grad_enabled
from engine.graph import AccumulateGrad, topological
from engine.stateless import functional_call, stack_module_state
from engine.tensor import Tensor, _apply, guard_shape, guard_work

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "stack_module_state", "vjp",
           "vmap"]


def _argnums_tuple(argnums):
    return (argnums,) if isinstance(argnums, int) else tuple(argnums)


_finished: weakref.WeakSet = weakref.WeakSet()  # leaf edges of levels that have returned: no longer "outside"


class _Level:
    """One transform call: its inputs, and whether what it computes reaches outside tensors."""

    def __init__(self, args, argnums) -> None:
        self.outer = is_grad_enabled()  # made before the level switches grad mode on
        self.local: set = set()         # the AccumulateGrad edges of the level's fresh leaves
        self.args = list(args)
        for i in argnums:
            guard_work()  # argnums come from the caller: as many as it likes
            leaves, spec = pytree.flatten(self.args[i])  # a tensor, or a dict/tuple of them (module parameters)
            if not all(isinstance(x, Tensor) for x in leaves):
                raise RuntimeError(f"Expected input at *args[{i}] to be a Tensor")
            self.args[i] = pytree.unflatten([self._input(x) for x in leaves], spec)

    def inputs(self, argnums) -> list:
        """The leaf tensors of args[argnums], in order."""
        return [x for i in argnums for x in pytree.flatten(self.args[i])[0]]

    def regroup(self, values, argnums) -> list:
        """`values` (one per tensor of `inputs(argnums)`) in the structure of each args[i]."""
        it = iter(values)
        return [pytree.unflatten(it, pytree.flatten(self.args[i])[1]) for i in argnums]

    def _input(self, x: Tensor) -> Tensor:
        if self.outer and x._requires_grad:
            return _apply("alias", (x,))
        leaf = x.detach().requires_grad_(True)
        self.local.add(leaf._grad_edge())
        return leaf

    def reaches_outside(self, *tensors) -> bool:
        """Whether any of `tensors` depends on a tensor that requires grad outside this level."""
        if not self.outer:
            return False
        for t in tensors:
            if isinstance(t, Tensor) and t._requires_grad:
                if any(type(node) is AccumulateGrad and node not in self.local and node not in _finished
                       for node in topological(t._grad_edge())):
                    return True
        return False

    def finish(self, value):
        """`value` unwrapped; the level's leaves are then nobody's outside (an enclosing level that reaches
        them through a closure is not differentiating for them)."""
        value = self.unwrap(value)
        _finished.update(self.local)
        return value

    def unwrap(self, value):
        """A result as the level returns it: detached unless its graph reaches outside (tuples, lists and
        dicts of tensors too, as `has_aux` outputs may be)."""
        if isinstance(value, Tensor):
            return value if self.reaches_outside(value) else value.detach()
        if isinstance(value, (tuple, list)):
            return type(value)(self.unwrap(v) for v in value)
        if isinstance(value, dict):
            return {k: self.unwrap(v) for k, v in value.items()}
        return value


def _split_aux(result, has_aux: bool, name: str):
    if not has_aux:
        return result, None
    if not isinstance(result, tuple) or len(result) != 2:
        raise RuntimeError(f"{name}(f)(*args): output of function f should be a tuple: (output, aux) if "
                           "has_aux is True")
    return result


def grad_and_value(func, argnums=0, has_aux=False):
    """`torch.func.grad_and_value(func)(*args)`: (d func / d args[argnums], func(*args))."""
    return _grad_and_value(func, argnums, has_aux, "func.grad_and_value")


def _grad_and_value(func, argnums, has_aux, api):
    nums = _argnums_tuple(argnums)

    def wrapper(*args, **kwargs):
        level = _Level(args, nums)
        with enable_grad():
            output, aux = _split_aux(func(*level.args, **kwargs), has_aux, "grad_and_value")
            if not isinstance(output, Tensor):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                   f"{type(output).__name__}")
            if output.ndim != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {output.ndim} dims. Maybe you wanted to use the vjp or jacrev APIs "
                                   "instead?")
            inputs = level.inputs(nums)
            if output.requires_grad:
                grads = gradients(output, inputs, create_graph=level.reaches_outside(output), allow_unused=True,
                                  materialize_grads=True, api=api)
            else:
                grads = tuple(Tensor._make(np.zeros_like(x._data)) for x in inputs)
        grads = level.regroup(grads, nums)
        grads = grads[0] if isinstance(argnums, int) else tuple(grads)
        return level.finish((grads, (output, aux)) if has_aux else (grads, output))
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """`torch.func.grad(func)(*args)`: the gradient of a scalar function."""
    inner = _grad_and_value(func, argnums, has_aux, "func.grad")

    def wrapper(*args, **kwargs):
        grads, value = inner(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads
    return wrapper


def vjp(func, *primals, has_aux=False):
    """`torch.func.vjp(func, *primals)`: (func(*primals), vjp_fn) where vjp_fn(v) gives vᵀJ per primal."""
    level = _Level(primals, tuple(range(len(primals))))
    with enable_grad():
        output, aux = _split_aux(func(*level.args), has_aux, "vjp")
    outs = output if isinstance(output, tuple) else (output,)
    xs = level.args

    def vjp_fn(*cotangents):
        if isinstance(output, tuple) and len(cotangents) == 1 and isinstance(cotangents[0], (tuple, list)):
            cotangents = tuple(cotangents[0])
        if len(cotangents) != len(outs):
            raise RuntimeError(f"Expected pytree structure of cotangents to be the same as pytree structure of "
                               f"outputs to the function. cotangents: {len(cotangents)} tensors, primal "
                               f"output: {len(outs)} tensors")
        pairs = [(o, c) for o, c in zip(outs, cotangents) if o.requires_grad]
        with enable_grad():
            if not pairs:
                return tuple(Tensor._make(np.zeros_like(x._data)) for x in xs)
            differentiable = level.reaches_outside(*[o for o, _ in pairs], *[c for _, c in pairs])
            grads = gradients([o for o, _ in pairs], xs, [c for _, c in pairs], retain_graph=True,
                              create_graph=differentiable, allow_unused=True, materialize_grads=True,
                              api="func.vjp")
        return level.unwrap(tuple(grads))
    value = level.unwrap(output)
    return (value, vjp_fn, level.unwrap(aux)) if has_aux else (value, vjp_fn)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """`torch.func.jvp(func, primals, tangents)`: (func(*primals), J·tangents)."""
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid "
                           "to call f(*primals).")
    for p, t in zip(primals, tangents):  # PyTorch makes each primal a dual tensor with its tangent first
        if isinstance(p, Tensor) and isinstance(t, Tensor) and p._data.shape != t._data.shape:
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                               f"Tensor, this is not supported. Tensor is of size {list(p._data.shape)} while the "
                               f"given forward gradient is of size {list(t._data.shape)}.")
    level = _Level(primals, tuple(range(len(primals))))
    with enable_grad():
        output, aux = _split_aux(func(*level.args), has_aux, "jvp")
        outs = output if isinstance(output, tuple) else (output,)
        differentiable = level.reaches_outside(*outs, *tangents)
        tangents_out = tuple(jvp_of(y, tuple(level.args), tangents, differentiable, "func.jvp") for y in outs)
    value, tangents_out, aux = level.finish((outs, tangents_out, aux))
    if not isinstance(output, tuple):
        value, tangents_out = value[0], tangents_out[0]
    return (value, tangents_out, aux) if has_aux else (value, tangents_out)


def _jacobian_transform(func, argnums, has_aux, api, forward: bool):
    """jacrev (`forward` False) and jacfwd: the Jacobian of every output for every argnum."""
    nums = _argnums_tuple(argnums)

    def wrapper(*args, **kwargs):
        level = _Level(args, nums)
        with enable_grad():
            output, aux = _split_aux(func(*level.args, **kwargs), has_aux, api.rsplit(".", 1)[-1])
            outs = output if isinstance(output, tuple) else (output,)
            for y in outs:
                if not isinstance(y, Tensor):
                    raise RuntimeError(f"{api.rsplit('.', 1)[-1]}(f, ...)(*args): expected f(*args) to return only "
                                       f"tensors, got unsupported type {type(y).__name__}")
            differentiable = level.reaches_outside(*outs)
            jac = tuple(tuple(level.regroup([_jacobian(y, x, differentiable, forward, api) for x in level.inputs(nums)],
                                            nums)) for y in outs)
        jac = tuple(j[0] if isinstance(argnums, int) else j for j in jac)
        jac = jac if isinstance(output, tuple) else jac[0]
        return level.finish((jac, aux) if has_aux else jac)
    return wrapper


def _jacobian(y: Tensor, x: Tensor, differentiable: bool, forward: bool, api: str) -> Tensor:
    if forward:  # forward mode costs one JVP per input element: vetted as such before it is made
        guard_shape((x._data.size,) + x._data.shape)
    guard_shape(y._data.shape + x._data.shape)
    if differentiable:
        return jacobian_rows(y, x, api)
    if not y.requires_grad:
        return Tensor._make(np.zeros(y._data.shape + x._data.shape, dtype=y._data.dtype))
    if not forward:
        return jacobian_of(y, x, retain_graph=True, api=api)
    u = Tensor._make(np.zeros_like(y._data), requires_grad=True)
    (g,) = gradients(y, x, u, create_graph=True, allow_unused=True, materialize_grads=True, api=api)
    n = x._data.size
    seeds = np.eye(n, dtype=x._data.dtype).reshape((n,) + x._data.shape)
    cols = pull(g, u, seeds, 1, api)  # (n,) + y.shape: column k is J e_k
    jac = np.moveaxis(cols.reshape((n,) + y._data.shape), 0, -1).reshape(y._data.shape + x._data.shape)
    return Tensor._make(np.array(jac, dtype=y._data.dtype))


def jacrev(func, argnums=0, *, has_aux=False):
    """`torch.func.jacrev(func)(*args)`: the Jacobian by reverse mode (batched sweeps of one-hot rows)."""
    return _jacobian_transform(func, argnums, has_aux, "func.jacrev", forward=False)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """`torch.func.jacfwd(func)(*args)`: the Jacobian by forward mode, one JVP per input element (the
    double-VJP trick: the same numbers as jacrev, cheaper in PyTorch when inputs are few)."""
    return _jacobian_transform(func, argnums, has_aux, "func.jacfwd", forward=True)


def hessian(func, argnums=0):
    """`torch.func.hessian(func)(*args)`: jacfwd(jacrev(func)) in PyTorch; here the Jacobian of jacrev's
    (differentiable) gradient, taken in batched sweeps over its recorded graph — the same numbers."""
    return _jacobian_transform(_jacobian_transform(func, argnums, False, "func.hessian", forward=False),
                               argnums, False, "func.hessian", forward=False)
