"""Module hooks (`register_forward_hook` and friends), as PyTorch 2.13 has them; each returns a `RemovableHandle`.

A module call runs its forward pre-hooks, its forward, its forward hooks, each free to replace what it was given.
Full backward hooks go through the one backward, as PyTorch's `BackwardHook` does: the module's tensor inputs and
outputs pass through an identity `BackwardHookFunction`, so the graph holds a `BackwardHookFunctionBackward` node on
each side. The node after the outputs sees the gradient arriving at them (grad_output: backward pre-hooks may
replace it); the node before the inputs sees the gradient leaving for them (grad_input: backward hooks may replace
it). The hooks run inside those nodes' backward, in the sweep's order, never in a second pass.
"""
from __future__ import annotations

import warnings
import weakref
from collections import OrderedDict

from engine.autograd.function import Function
from engine.grad_mode import is_grad_enabled
from engine.hook_handle import RemovableHandle
from engine.tensor import Tensor

# the graph nodes of BackwardHookFunction (the module's hooks run in their backward), by identity: the explanation
# layer says "hooked" at them, as it does at a tensor's register_hook
HOOK_NODES: weakref.WeakSet = weakref.WeakSet()


class ModuleHooks:
    """One module's hooks, each dict in registration order (a `prepend` hook moved to the front)."""

    __slots__ = ("forward_pre", "forward", "backward_pre", "backward", "with_kwargs", "always_call")

    def __init__(self) -> None:
        self.forward_pre: OrderedDict = OrderedDict()
        self.forward: OrderedDict = OrderedDict()
        self.backward_pre: OrderedDict = OrderedDict()
        self.backward: OrderedDict = OrderedDict()
        self.with_kwargs: set[int] = set()   # ids of forward (pre-)hooks called with the keyword arguments too
        self.always_call: set[int] = set()   # ids of forward hooks called even when forward raised

    def __bool__(self) -> bool:
        return bool(self.forward_pre or self.forward or self.backward_pre or self.backward)

    def add(self, hooks: OrderedDict, hook, *, prepend: bool = False, with_kwargs: bool = False,
            always_call: bool = False) -> RemovableHandle:
        handle = RemovableHandle(hooks, self.with_kwargs, self.always_call)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        if with_kwargs:
            self.with_kwargs.add(handle.id)
        if always_call:
            self.always_call.add(handle.id)
        return handle

    def call(self, module, args: tuple, kwargs: dict):
        """`module(*args, **kwargs)` with its hooks, in PyTorch's order."""
        result, called = None, set()
        try:
            for key, hook in list(self.forward_pre.items()):
                if key in self.with_kwargs:
                    replaced = hook(module, args, kwargs)
                    if replaced is not None:
                        if not (isinstance(replaced, tuple) and len(replaced) == 2):
                            raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, "
                                               f"new_kwargs), but got {replaced}.")
                        args, kwargs = replaced
                else:
                    replaced = hook(module, args)
                    if replaced is not None:
                        args = replaced if isinstance(replaced, tuple) else (replaced,)
            backward = BackwardHook(module, self) if self.backward or self.backward_pre else None
            if backward is not None:
                args = backward.setup_input_hook(args)
            result = module.forward(*args, **kwargs)
            for key, hook in list(self.forward.items()):
                if key in self.always_call:
                    called.add(key)
                replaced = (hook(module, args, kwargs, result) if key in self.with_kwargs
                            else hook(module, args, result))
                if replaced is not None:
                    result = replaced
            if backward is not None:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple of "
                                  f"Tensors but received {type(result)}", UserWarning, stacklevel=3)
                result = backward.setup_output_hook(result)
            return result
        except Exception:
            for key, hook in list(self.forward.items()):
                if key in self.always_call and key not in called:
                    try:
                        replaced = (hook(module, args, kwargs, result) if key in self.with_kwargs
                                    else hook(module, args, result))
                        if replaced is not None:
                            result = replaced
                    except Exception as e:  # noqa: BLE001 - PyTorch silences it: forward's error is the one raised
                        warnings.warn("forward hook with ``always_call=True`` raised an exception that was silenced "
                                      f"as another error was raised in forward: {e}", UserWarning, stacklevel=3)
            raise


class BackwardHookFunction(Function):
    """The identity on a module's tensor inputs (or outputs); its backward hands the gradients to `on_backward`
    (a `BackwardHook` method), whose result flows on. An input that needs no gradient is returned without one."""

    @staticmethod
    def forward(ctx, *tensors, on_backward):
        outputs = tuple(t.detach() for t in tensors)  # views of the inputs: their version counters are shared
        ctx.mark_non_differentiable(*(o for o, t in zip(outputs, tensors) if not t.requires_grad))
        ctx.on_backward = on_backward
        return outputs if len(outputs) > 1 else outputs[0]  # one tensor: one node, as PyTorch's chain shows

    @staticmethod
    def backward(ctx, *grads):
        return ctx.on_backward(grads)


def _checked(grads) -> tuple:
    """What a hook returned in place of gradients: Tensors or None, as PyTorch requires."""
    for g in grads:
        if g is not None and not isinstance(g, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(g).__name__}'")
    return tuple(grads)


def _pack(indices, values, size: int) -> tuple:
    """`values` at `indices` of a tuple of `size`, None elsewhere (the non-tensor arguments)."""
    packed = [None] * size
    for i, value in zip(indices, values):
        packed[i] = value
    return tuple(packed)


class BackwardHook:
    """One call's full backward hooks: grad_output captured at the outputs' node, handed to the hooks at the inputs'
    node together with grad_input (PyTorch's `torch.utils.hooks.BackwardHook`). The hooks are those registered when
    the module was called, as in PyTorch: removing a handle before backward does not stop them."""

    def __init__(self, module, hooks: ModuleHooks) -> None:
        self.module = module
        self.pre_hooks, self.hooks = tuple(hooks.backward_pre.values()), tuple(hooks.backward.values())
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_index = self.output_index = None

    @staticmethod
    def _through(values: tuple, on_backward):
        """`values` with its tensors passed through a BackwardHookFunction, and their indices; unchanged (and None)
        when none requires grad or grad mode is off."""
        index = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
        if not (any(values[i].requires_grad for i in index) and is_grad_enabled()):
            return values, None
        passed = BackwardHookFunction.apply(*(values[i] for i in index), on_backward=on_backward)
        passed = passed if isinstance(passed, tuple) else (passed,)
        for t in passed:   # one node, or with several tensors one node each picking its part of the packed one
            if t._grad_fn is not None:   # the tensor's own node: with several tensors, the edge to the packed one
                HOOK_NODES.add(t._grad_fn)
                HOOK_NODES.update(p for p in t._grad_fn.parents if len(passed) > 1 and p is not None)
        out = list(values)
        for i, t in zip(index, passed):
            out[i] = t
        return tuple(out), index

    def setup_input_hook(self, args: tuple) -> tuple:
        args, self.input_index = self._through(args, self._grad_input)
        self.n_inputs = len(args)
        return args

    def setup_output_hook(self, result):
        several = isinstance(result, tuple)
        outputs, self.output_index = self._through(result if several else (result,), self._grad_output)
        self.n_outputs = len(outputs)
        return outputs if several else outputs[0]

    def _grad_output(self, grads: tuple) -> tuple:
        """At the outputs' node: keep grad_output (the backward pre-hooks may replace it); with no input requiring
        grad the hooks are called here, with grad_input all None."""
        self.grad_outputs = _pack(self.output_index, grads, self.n_outputs)
        for hook in self.pre_hooks:
            replaced = hook(self.module, self.grad_outputs)
            if replaced is None:
                continue
            if len(replaced) != len(self.grad_outputs):
                raise RuntimeError("Backward pre hook returned an invalid number of grad_output, got "
                                   f"{len(replaced)}, but expected {len(self.grad_outputs)}")
            self.grad_outputs = _checked(replaced)
        grad_outputs = self.grad_outputs
        if self.input_index is None:
            warnings.warn("Full backward hook is firing when gradients are computed with respect to module outputs "
                          "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                          "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.",
                          UserWarning, stacklevel=2)
            none = (None,) * self.n_inputs
            for hook in self.hooks:
                replaced = hook(self.module, none, grad_outputs)
                if replaced is not None and not (isinstance(replaced, tuple) and all(r is None for r in replaced)):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                       "return None or None for all gradients.")
            self.grad_outputs = None
        return tuple(grad_outputs[i] for i in self.output_index)

    def _grad_input(self, grads: tuple) -> tuple:
        """At the inputs' node: the backward hooks see (grad_input, grad_output), each may replace grad_input."""
        if self.grad_outputs is None:  # the gradient reached the inputs without passing the outputs
            return grads
        result = _pack(self.input_index, grads, self.n_inputs)
        for hook in self.hooks:
            replaced = hook(self.module, result, self.grad_outputs)
            if replaced is None:
                continue
            if len(replaced) != len(result):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, got "
                                   f"{len(replaced)}, but expected {len(result)}")
            result = _checked(replaced)
        self.grad_outputs = None
        out = tuple(result[i] for i in self.input_index)
        for new, old in zip(out, grads):
            if isinstance(new, Tensor) and tuple(new.shape) != tuple(old.shape):
                raise RuntimeError("hook 'hook' has changed the size of value")
        return out
