"""Hooks on a backward node (`y.grad_fn.register_prehook(fn)`, `register_hook(fn)`), kept apart from the node
so a graph without them pays one test per backward sweep. A pre-hook sees the node's grad_outputs and may
replace them; a hook sees (grad_inputs, grad_outputs) after the node ran and may replace grad_inputs."""
from __future__ import annotations

import weakref

from engine import xp
from engine.hook_handle import RemovableHandle

hooked: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # node -> its NodeHooks


class NodeHooks:
    """One node's pre-hooks and hooks, each in the order registered."""

    def __init__(self) -> None:
        self.pre: dict = {}
        self.post: dict = {}

    def run_pre(self, g):
        """The grad_output after every pre-hook (one returning None leaves it as it is)."""
        wrap = not xp.is_tensor(g)
        outputs = (xp.tensors.constant(g) if wrap else g,)
        for hook in list(self.pre.values()):
            result = hook(outputs)
            if result is not None:
                outputs = _checked(result, outputs, hook)
        return outputs[0]._data if wrap else outputs[0]

    def run_post(self, node, g, contributions, grads, before) -> None:
        """Call the hooks with (grad_inputs, grad_outputs); where one returns new grad_inputs, `grads` (which the
        node's own results were already added to, over `before`) is rebuilt from them."""
        wrap = not xp.is_tensor(g)
        as_tensor = xp.tensors.constant if wrap else (lambda v: v)
        inputs = [None] * len(node.parents)
        for i, _, gi in contributions:
            inputs[i] = as_tensor(gi)
        inputs, outputs = tuple(inputs), (as_tensor(g),)
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
