"""In-place ops and what they keep true: versions shared by a storage's views, the leaf and overlap checks,
and the rebase of a base's graph when one of its views is written (PyTorch's CopySlices)."""
from __future__ import annotations

import numpy as np

from engine import dtypes
from engine.graph import ViewWithoutGrad
from engine.ops import OPS
from engine.tensor import INFERENCE_INPLACE, Tensor, _apply, _binary, _fill_value, _modes, _run, _tensor_arg


def _view_index(base: "Tensor", ops: tuple) -> np.ndarray:
    """Where a view sits in its base: the base's flat positions, laid out as the view (its view ops replayed)."""
    index = np.arange(base._data.size).reshape(base._data.shape)
    for op, attrs in ops:
        index = op.forward(index, **attrs)
    return np.array(index)


def _refresh_views(base: "Tensor", changed: "Tensor | None" = None) -> None:
    """After the base's graph changed in place, its live views read from its new history (each an
    AsStridedBackward0 of the base, as PyTorch regenerates them); `changed` has already been done."""
    views = getattr(base, "_views", None)
    if not views:
        return
    alive = []
    for ref in views:
        view = ref()
        if view is None:
            continue
        alive.append(ref)
        if view is not changed:
            strided = _run(OPS["as_strided"], (base,), {"index": _view_index(base, view._view[1])})
            view._grad_fn, view._requires_grad = strided._grad_fn, True
    base._views = alive


LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."


LEAF_VIEW_INPLACE = "a view of a leaf Variable that requires grad is being used in an in-place operation."


OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
           "Please clone() the tensor before performing the operation.")


def _check_overlap(array: np.ndarray) -> None:
    """PyTorch's refusal to write elementwise into an expanded tensor (a stride-0 dim of size > 1)."""
    if 0 in array.strides and any(st == 0 and n > 1 for st, n in zip(array.strides, array.shape)):
        raise RuntimeError(OVERLAP)


_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2}


class InplaceMethods:
    """In-place ops, versions and views. (attached to `Tensor` by `engine.registry`)"""

    # --- in-place ---------------------------------------------------------------------------------
    def _inplace(self, result: "Tensor") -> "Tensor":
        """Write `result` into this tensor's storage (its views and base see it) and, if recorded, make its
        node this tensor's grad_fn (or, for a view, rebase the base's graph: `_rebase`).

        The node read this tensor's value before the write: where it holds that array it gets a copy (PyTorch
        saves `original_self` so), and every other node that saved it sees the new version and refuses."""
        if result._data.shape != self._data.shape:
            raise RuntimeError(f"output with shape [{', '.join(map(str, self._data.shape))}] doesn't match the "
                               f"broadcast shape [{', '.join(map(str, result._data.shape))}]")
        if _KIND_RANK[result._data.dtype.kind] > _KIND_RANK[self._data.dtype.kind]:
            raise RuntimeError(f"result type {dtypes.SCALAR_TYPE_NAMES[result._data.dtype.name]} can't be cast to the "
                               f"desired output type {dtypes.SCALAR_TYPE_NAMES[self._data.dtype.name]}")
        _check_overlap(self._data)
        self._bump_version()
        forward_ad = _modes().forward_ad
        if forward_ad is not None:
            forward_ad.inplace(self, result)
        node = result._grad_fn
        if node is not None and self._unrecorded_write():
            node = None
        storage = self._data
        if node is not None and any(a is storage for a in node.arrays):
            node.arrays = tuple(a.copy() if a is storage else a for a in node.arrays)
        np.copyto(storage, result._data, casting="unsafe")
        if node is None:
            return self
        node.versions = tuple((self._shared_version(), self._version, True) if is_output else (t, v, False)
                              for t, v, is_output in node.versions if t is not self)
        view = self._view
        if view is not None:
            self._rebase(view, result)
        else:
            self._grad_fn, self._requires_grad = node, True
            _refresh_views(self)
        return self

    def _rebase(self, view: tuple, result: "Tensor") -> None:
        """After an in-place change of this view (already in the shared storage): the base's grad_fn becomes
        CopySlices(base, result), and this view's AsStridedBackward0 of the base, as PyTorch rebases them."""
        base, ops = view
        index = _view_index(base, ops)
        rebased = _run(OPS["copy_slices"], (base, result), {"index": index})
        base._grad_fn, base._requires_grad = rebased._grad_fn, True
        strided = _run(OPS["as_strided"], (base,), {"index": index})
        self._grad_fn, self._requires_grad = strided._grad_fn, True
        _refresh_views(base, self)

    @property
    def _version(self) -> int:
        """PyTorch's version counter: in-place changes of this tensor's storage (shared with its views and
        `detach()`es)."""
        vc = self._vc
        return 0 if vc is None else vc[0]

    @_version.setter
    def _version(self, value: int) -> None:
        self._vc = None if value == 0 else [value]

    @property
    def _base(self):
        """The tensor this one is a view of (None if it is not a view)."""
        view = self._view
        return None if view is None else view[0]

    def _bump_version(self) -> None:
        """Count an in-place change (PyTorch's version counter, shared by the views of one storage)."""
        vc = self._vc
        if vc is None:
            self._vc = [1]
        else:
            vc[0] += 1

    def _shared_version(self) -> list:
        """This tensor's version cell, made on first use: views, detach() and saving nodes share it."""
        vc = self._vc
        if vc is None:
            vc = self._vc = [0]
        return vc

    def _unrecorded_write(self) -> bool:
        """A write into a leaf (or a leaf's view) inside a no_grad block that a learner believes records
        (`engine.explain.beliefs.FlowsThroughDetach`): not recorded, as initialising weights never is."""
        belief = _modes().belief
        if belief is None or not belief.in_no_grad:
            return False
        base = self._base if self._base is not None else self
        return base._requires_grad and base._grad_fn is None

    def _check_inplace(self) -> None:
        modes = _modes()
        if self._inference and not modes.inference:
            raise RuntimeError(INFERENCE_INPLACE)
        if self._requires_grad and modes.grad and not self._unrecorded_write():
            if self._grad_fn is None:
                edge = self._accumulator
                raise RuntimeError(edge.message if type(edge) is ViewWithoutGrad else LEAF_INPLACE)
            base = self._base
            if base is not None and base._requires_grad and base._grad_fn is None:
                raise RuntimeError(LEAF_VIEW_INPLACE)

    def add_(self, other, alpha=1):
        self._check_inplace()
        return self._inplace(self.add(other, alpha))

    def sub_(self, other, alpha=1):
        self._check_inplace()
        return self._inplace(self.sub(other, alpha))

    def mul_(self, other):
        self._check_inplace()
        return self._inplace(self * other)

    def div_(self, other):
        self._check_inplace()
        return self._inplace(self / other)

    def zero_(self):
        self._check_inplace()
        if self._grad_fn is None:
            self._data[...] = 0
            self._bump_version()
            if _modes().forward_ad is not None:
                _modes().forward_ad.filled(self)
            return self
        return self._inplace(_apply("zero", (self,)))

    def fill_(self, value):
        self._check_inplace()
        value = _fill_value(value, "fill_")
        self._data[...] = value
        self._bump_version()
        if _modes().forward_ad is not None:
            _modes().forward_ad.filled(self)
        return self

    def copy_(self, src):
        self._check_inplace()
        src = _tensor_arg(src, "copy_", "src")
        np.broadcast_shapes(src._data.shape, self._data.shape)
        modes = _modes()
        if not (modes.grad and src._requires_grad) and modes.forward_ad is None:
            _check_overlap(self._data)
            self._bump_version()
            np.copyto(self._data, src._data, casting="unsafe")
            return self
        return self._inplace(_apply("copy", (self, src)))

    __iadd__ = add_

    __isub__ = sub_

    __imul__ = mul_

    __itruediv__ = div_

    def floor_divide_(self, other):
        """`x //= y`: the in-place op (its missing derivative is named floor_divide_, as in PyTorch)."""
        self._check_inplace()
        return self._inplace(_binary("floor_divide_", self, other))

    __ifloordiv__ = floor_divide_
