"""Every operation of the engine: its forward value and its local backward rule, one record per op.

The engine's analogue of PyTorch's `derivatives.yaml`: one record per op (`record.Op`, registered by
`record.op`), written once against `engine.xp`, so the numeric backward pass, the batched Jacobian and the
symbolic explanations all run the very same rules. The records live in modules by op family (pointwise,
reductions, linalg, shape, indexing, cumulative, comparison, losses, activations, joined, backward_ops); importing this
package registers them all in `OPS`.

A rule receives the incoming cotangent `g`, the op's output `out`, the input arrays and the op's attributes,
and returns the cotangent for one input. `g` may carry leading batch axes (that is how the Jacobian pushes
every one-hot cotangent through in one sweep), so rules index axes from the end. The engine sums a returned
cotangent down to its input's shape (undoing broadcasting).
"""
from __future__ import annotations

from engine.ops import (  # noqa: F401 - each family registers its records in OPS
    activations,
    backward_ops,
    comparison,
    cumulative,
    indexing,
    joined,
    linalg,
    losses,
    pointwise,
    reductions,
    shape,
)
from engine.ops.joined import variadic
from engine.ops.record import COMPOSITES, FLOATING, OPS, Names, Op, broadcast_shapes, saved_tensors

__all__ = ["COMPOSITES", "FLOATING", "OPS", "Names", "Op", "broadcast_shapes", "saved_tensors", "variadic"]
