"""`torch.autograd.graph`: the graph's node type, as a learner meets it (`isinstance(y.grad_fn, Node)`).

The graph itself and its one sweep live in `engine.graph`, below the tensor."""
from __future__ import annotations

from engine.graph import Node

__all__ = ["Node"]
