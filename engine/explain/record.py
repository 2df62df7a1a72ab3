"""Run a program through the snippet runner and capture every backward call it makes.

The explanation speaks of the snippet's own variables (`inp`, `tensor2`, `g`),
so `Names` maps the recorded objects back to the names the program bound:
leaf tensors and constant tensors by the identity of their arrays, intermediate
results by the identity of their `grad_fn`. Unnamed leaves are called x, x_2, …
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engine.graph import AccumulateGrad, BackwardCall, record_backward
from engine.tensor import Tensor


@dataclass
class Recording:
    run: object                       # the runner's RunResult
    calls: list[BackwardCall] = field(default_factory=list)


def record_program(source: str, limits=None) -> Recording:
    """Run `source` with the runner (never raises for the snippet's fault) and record its backward calls."""
    from engine.runner import run_snippet

    with record_backward() as calls:
        result = run_snippet(source, limits=limits) if limits is not None else run_snippet(source)
    return Recording(result, list(calls))


class Names:
    """What the program called each tensor, array and graph node."""

    def __init__(self, namespace: dict | None) -> None:
        self._tensor: dict[int, str] = {}
        self._array: dict[int, str] = {}
        self._node: dict[int, str] = {}
        self._used: set[str] = set()
        self._keep: list = []  # keep named objects alive so their ids stay theirs
        for name, value in (namespace or {}).items():
            if not isinstance(value, Tensor) or name.startswith("_"):
                continue
            self._keep.append(value)
            self._used.add(name)
            self._tensor.setdefault(id(value), name)
            self._array.setdefault(id(value._data), name)
            if value.grad_fn is not None:
                self._node.setdefault(id(value.grad_fn), name)

    def leaf(self, edge: AccumulateGrad) -> str:
        """The name of a leaf that requires grad (a fresh x, x_2, … when the program did not bind one)."""
        tensor = edge.variable
        name = self._tensor.get(id(tensor)) or self._array.get(id(tensor._data))
        if name is None:
            name = next(n for n in ("x", *(f"x_{k}" for k in range(2, 10_000))) if n not in self._used)
            self._used.add(name)
            self._keep.append(tensor)
            self._tensor[id(tensor)] = name
        return name

    def tensor(self, tensor) -> str | None:
        return self._tensor.get(id(tensor))

    def array(self, array) -> str | None:
        """The name of a constant tensor whose array a node used, if the program bound one."""
        return self._array.get(id(array))

    def node(self, node) -> str | None:
        """The name of the tensor a grad_fn node produced, if the program bound one."""
        return self._node.get(id(node))
