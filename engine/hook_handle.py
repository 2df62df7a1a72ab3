"""`RemovableHandle` (PyTorch's `torch.utils.hooks.RemovableHandle`): what registering a hook returns.

Its own module, not the graph's: the runner shows objects of `engine.graph` as graph nodes."""
from __future__ import annotations


class RemovableHandle:
    """What `register_hook` (and a module's `register_*_hook`) returns: `handle.remove()` unregisters the hook,
    from its dict and from the sets that mark its options (`marks`: a module hook's `with_kwargs`...)."""

    _next_id = 0

    def __init__(self, hooks: dict, *marks: set) -> None:
        self._hooks, self._marks = hooks, marks
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self) -> None:
        self._hooks.pop(self.id, None)
        for mark in self._marks:
            mark.discard(self.id)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()
