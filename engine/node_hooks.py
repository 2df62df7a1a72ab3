"""Hooks on a backward node (`y.grad_fn.register_prehook(fn)`, `register_hook(fn)`), kept apart from the node
so a graph without them pays one test per backward sweep. A pre-hook sees the node's grad_outputs and may
replace them; a hook sees (grad_inputs, grad_outputs) after the node ran and may replace grad_inputs."""
from __future__ import annotations

import weakref

from engine import xp
from engine.hook_handle import RemovableHandle

hooked: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # node -> its NodeHooks
# a custom Function's node with several outputs -> how its one gradient array splits into one per output and
# back (`engine.autograd.function._Layout`): its hooks get one gradient per output, as PyTorch's
layouts: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _grad_outputs(node, g, as_tensor) -> tuple:
    layout = layouts.get(node)
    parts = (g,) if layout is None else layout.split(g)
    return tuple(None if part is None else as_tensor(part) for part in parts)


class NodeHooks:
    """One node's pre-hooks and hooks, each in the order registered."""

    def __init__(self) -> None:
        self.pre: dict = {}
        self.post: dict = {}

    def run_pre(self, node, g):
        """The grad_outputs after every pre-hook (one returning None leaves them as they are)."""
        wrap = not xp.is_tensor(g)
        outputs = _grad_outputs(node, g, xp.tensors.constant if wrap else (lambda v: v))
        for hook in list(self.pre.values()):
            result = hook(outputs)
            if result is not None:
                outputs = _checked(result, outputs, hook)
        values = tuple(o._data if wrap and o is not None else o for o in outputs)
        layout = layouts.get(node)
        return values[0] if layout is None else layout.join(values, g)

    def run_post(self, node, g, contributions, grads, before) -> None:
        """Call the hooks with (grad_inputs, grad_outputs); where one returns new grad_inputs, `grads` (which the
        node's own results were already added to, over `before`) is rebuilt from them."""
        wrap = not xp.is_tensor(g)
        as_tensor = xp.tensors.constant if wrap else (lambda v: v)
        inputs = [None] * len(node.parents)
        for i, _, gi in contributions:
            inputs[i] = as_tensor(gi)
        inputs, outputs = tuple(inputs), _grad_outputs(node, g, as_tensor)
        replaced = False
        for hook in list(self.post.values()):
            result = hook(inputs, outputs)
            if result is not None:
                inputs, replaced = _checked(result, inputs, hook), True
        if not replaced:
            return
        for parent, previous in before.items():
            if previous is None:
                grads.pop(parent, None)
            else:
                grads[parent] = previous
        for parent, gi in zip(node.parents, inputs):
            if parent is not None and gi is not None:
                value = gi._data if wrap else gi
                grads[parent] = value if grads.get(parent) is None else grads[parent] + value


def _checked(result, expected: tuple, hook) -> tuple:
    result = tuple(result) if isinstance(result, (tuple, list)) else (result,)
    if len(result) != len(expected):
        raise RuntimeError(f"hook '{getattr(hook, '__name__', 'hook')}' has returned an incorrect number of values "
                           f"(got {len(result)}, but expected {len(expected)})")
    return result


def register(node, pre: bool, hook) -> RemovableHandle:
    hooks = hooked.get(node)
    if hooks is None:
        hooks = hooked[node] = NodeHooks()
    table = hooks.pre if pre else hooks.post
    handle = RemovableHandle(table)
    table[handle.id] = hook
    return handle
