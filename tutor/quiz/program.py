"""A generated quiz program: tensors, forward lines and backward calls, rendered as PyTorch code.

Keeping the parts apart (rather than only the final text) lets one program be
rendered two ways: the snippet the learner sees, and the forward-only objective
Σₖ ⟨gradientₖ, outputₖ⟩ whose derivative is what backward computes — what the
tests differentiate numerically to check the engine's answer.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Backward:
    """`output.backward(gradient, retain_graph=...)`; gradient None means the implicit 1."""

    output: str
    gradient: np.ndarray | None = None
    retain_graph: bool = False

    def code(self) -> str:
        args = [] if self.gradient is None else [f"torch.tensor({literal(self.gradient)})"]
        if self.retain_graph:
            args.append("retain_graph=True")
        return f"{self.output}.backward({', '.join(args)})"


@dataclass(frozen=True)
class Program:
    leaves: tuple[tuple[str, np.ndarray], ...]  # tensors created with requires_grad=True
    constants: tuple[tuple[str, np.ndarray], ...]  # plain tensors
    steps: tuple[str | Backward, ...]  # forward lines and backward calls, in order
    target: str  # the leaf whose .grad is asked

    @property
    def expression(self) -> str:
        return f"{self.target}.grad"

    def snippet(self) -> str:
        return self._render(self.steps, dtype=None)

    def objective_snippet(self, dtype: str = "float64", given: tuple[str, ...] = ()) -> str:
        """Forward only, ending in `objective = Σₖ (gradientₖ · outputₖ).sum()`.

        Leaves named in `given` are not created: the caller puts them in the namespace, so one
        compiled objective can be evaluated at many points (finite differences).
        """
        terms = []
        for step in self.steps:
            if isinstance(step, Backward):
                weight = "" if step.gradient is None else f" * torch.tensor({literal(step.gradient)}, dtype=torch.{dtype})"
                terms.append(f"({step.output}{weight}).sum()")
        forward = tuple(step for step in self.steps if isinstance(step, str))
        return self._render((*forward, f"objective = {' + '.join(terms)}"), dtype=dtype, given=given)

    def leaf(self, name: str) -> np.ndarray:
        return dict(self.leaves)[name]

    def _render(self, steps: tuple[str | Backward, ...], dtype: str | None, given: tuple[str, ...] = ()) -> str:
        kind = f", dtype=torch.{dtype}" if dtype else ""
        lines = ["import torch"]
        lines += [f"{name} = torch.tensor({literal(value)}{kind}, requires_grad=True)"
                  for name, value in self.leaves if name not in given]
        lines += [f"{name} = torch.tensor({literal(value)}{kind})" for name, value in self.constants]
        lines += [step.code() if isinstance(step, Backward) else step for step in steps]
        return "\n".join(lines) + "\n"


def literal(value: np.ndarray) -> str:
    """A nested-list float literal with full precision (`[[1.5, -2.0], [0.25, 3.0]]`)."""
    array = np.asarray(value, dtype=np.float64)
    if array.ndim == 0:
        return repr(float(array))
    return "[" + ", ".join(literal(row) for row in array) + "]"
