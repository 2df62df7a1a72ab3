"""What an explanation holds, and its JSON form (`autograd-tutor explain --json`)."""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class LeafExplanation:
    """One leaf x of one backward call: its Jacobian, vᵀJ and the checks on them."""

    name: str
    shape: tuple
    value: np.ndarray
    jacobian: np.ndarray | None      # (m, n): d vec(y) / d vec(x); None when too large to build
    structure: dict                  # kind, shape, nonzero, blocks (see jacobian.structure)
    vjp: np.ndarray                  # vᵀJ reshaped to x's shape
    contribution: np.ndarray         # what this call added to x.grad (after − before)
    grad_before: np.ndarray | None
    grad_after: np.ndarray
    vjp_matches: bool                # vᵀJ == this call's contribution to x.grad
    finite_differences: np.ndarray | None   # None when the leaf is too large to check
    fd_max_difference: float | None
    fd_agrees: bool | None

    @property
    def accumulated(self) -> bool:
        """True when x.grad already held a gradient from an earlier backward call."""
        return self.grad_before is not None


@dataclass
class CallExplanation:
    """One `backward` call of the program."""

    index: int
    output_name: str
    output_shape: tuple
    output_value: np.ndarray
    gradient: np.ndarray | None      # the `gradient` argument as given (None: implicit 1)
    seed: np.ndarray                 # v, the cotangent backward started from
    leaves: list[LeafExplanation]
    graph: list                      # graph.GraphNode, root first
    trace: list                      # trace.TraceStep, in the order backward visits nodes
    nodes: list = field(repr=False, default_factory=list)   # the graph as captured at the call
    names: Any = field(repr=False, default=None)
    error: Any = None                # the program's error when this backward call raised (then no leaves)
    line: int | None = None          # the program line of the call
    leaf_values: dict = field(repr=False, default_factory=dict)   # {AccumulateGrad: value at the call}
    hooked: bool = False             # hooks (a tensor's register_hook, a module's backward hooks) ran in this
                                     # backward and may change gradients
    module_hooks: bool = False       # a module's full backward hooks ran inside it: its J is what backward computed
    weight: str | None = None        # the program's name for the gradient it passed (`v` in y.backward(v))
    api: str = "Tensor.backward"     # the entry point: autograd.grad, func.grad, … (graph.BackwardCall.api)
    returns: bool = False            # it returned its gradients (autograd.grad, torch.func) instead of adding to .grad
    batched: bool = False            # a Jacobian's one-hot rows pushed back at once: it returned J itself
    derivative_of: tuple | None = None   # (y, x) when the output is the program's ∂y/∂x: this is a second derivative
    several: int = 0                 # outputs differentiated at once (autograd.backward([y1, y2])): stacked into one
    output_names: list = field(default_factory=list)   # their names, in the order they are stacked
    root_indices: list = field(default_factory=lambda: [0])   # where the outputs are in `graph`
    too_large: int = 0               # entries of J when too many to build (jacobian.affordable): vᵀJ only
    forward: Any = None              # forward.ForwardExplanation for a forward-mode call (jvp): J·t, not vᵀJ
    refused: str | None = None       # a message key: why this call is not explained (said instead of the panels)

    @property
    def sweep_seed(self) -> np.ndarray:
        """The cotangent one sweep starts from: v, or for a batched call a seed of ones (its J is the point)."""
        return np.ones(self.output_shape, dtype=np.asarray(self.seed).dtype) if self.batched else self.seed

    @property
    def v_words(self) -> str:
        if self.gradient is None:
            one = "a scalar" if self.output_shape == () else "a one-element tensor"
            return f"{self.output_name} is {one}, so backward() starts from the implicit gradient v = 1"
        return f"v is the gradient argument passed to {self.output_name}.backward(…)"


@dataclass
class Explanation:
    ok: bool
    error: Any                       # the run's SnippetError, or None
    stdout: str
    calls: list[CallExplanation]
    source: str = ""
    max_symbolic: int = 1024
    run: Any = field(default=None, repr=False)   # the runner's RunResult (namespace, evaluate)

    def to_json(self, symbolic: dict | None = None) -> dict:
        """Plain data: arrays as nested lists; `symbolic` maps call index -> SymbolicJacobian to include."""
        symbolic = symbolic or {}
        error = self.error
        return {
            "ok": self.ok,
            "error": error.to_json() if hasattr(error, "to_json") else (None if error is None else str(error)),
            "stdout": self.stdout,
            "calls": [_call_json(call, symbolic.get(call.index)) for call in self.calls],
        }


def plain(value):
    """numpy arrays and scalars as JSON-ready lists and floats (NaN and ±inf as strings)."""
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return np.vectorize(str, otypes=[object])(value).tolist() if value.size else value.tolist()
        return plain(value.tolist())
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (np.floating, float)):
        value = float(value)
        return value if math.isfinite(value) else str(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value


def _call_json(call: CallExplanation, sym) -> dict:
    data = {
        "index": call.index,
        "output": {"name": call.output_name, "shape": list(call.output_shape), "value": plain(call.output_value)},
        "v": None if call.gradient is None else plain(call.seed),
        "v_words": call.v_words,
        "api": call.api,
        "forward": None if call.forward is None else plain(call.forward),
        "refused": call.refused,
        "leaves": [_leaf_json(leaf) for leaf in call.leaves],
        "graph": plain(call.graph),
        "trace": plain(call.trace),
    }
    if sym is not None:
        data["symbolic"] = _symbolic_json(sym)
    return data


def _leaf_json(leaf: LeafExplanation) -> dict:
    return {
        "name": leaf.name, "shape": list(leaf.shape), "value": plain(leaf.value),
        "jacobian": plain(leaf.jacobian), "structure": leaf.structure,
        "vjp": plain(leaf.vjp), "grad_before": plain(leaf.grad_before), "grad_after": plain(leaf.grad_after),
        "vjp_matches_grad": leaf.vjp_matches, "accumulated": leaf.accumulated,
        "finite_differences": plain(leaf.finite_differences),
        "fd_max_difference": plain(leaf.fd_max_difference), "fd_agrees": leaf.fd_agrees,
    }


def _symbolic_json(sym) -> dict:
    return {
        "ok": sym.ok, "note": sym.note,
        "output": None if sym.output is None else plain(sym.output),
        "leaves": [{"name": s.name, "symbols": plain(s.symbols), "jacobian": plain(s.jacobian),
                    "substituted": plain(s.substituted), "vjp": plain(s.vjp)} for s in sym.leaves],
        "values": {str(k): v for k, v in sym.values.items()},
        "chains": [plain(c) | {"text": c.text()} for c in sym.chains],
    }
