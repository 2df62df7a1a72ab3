"""The autograd attributes learners read and call on a tensor: `requires_grad`, `grad_fn`, `is_leaf`, `grad` (with
PyTorch's warning for a non-leaf), `retain_grad`, `backward`, the hooks, `detach` and `.data` — and where a
gradient for a tensor goes (`_grad_edge`) and how it is added into `.grad` (`_accumulate`)."""
from __future__ import annotations

import warnings

import numpy as np

from engine import backward as _backward
from engine import state
from engine.graph import AccumulateGrad, ViewWithoutGrad, accumulate, as_grad, output_of
from engine.hook_handle import RemovableHandle
from engine.tensor import Tensor, _apply, _input_list, _modes


class AutogradMethods:
    """The autograd attributes. (attached to `Tensor` by `engine.registry`)"""

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self._set_requires_grad(value, "only Tensors of floating point and complex dtype can require gradients")

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        self._set_requires_grad(requires_grad, "only Tensors of floating point dtype can require gradients")
        return self

    def _set_requires_grad(self, value: bool, int_message: str) -> None:
        if self._grad_fn is not None:
            if not value:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
            return
        if value and self._data.dtype.kind != "f":
            raise RuntimeError(int_message)
        self._requires_grad = bool(value)

    @property
    def grad_fn(self):
        """The node that made this tensor (None for a leaf); read-only, as in PyTorch. The outputs of a custom
        Function share its one node (`out1.grad_fn is out2.grad_fn`), each reaching it by an edge of its own."""
        return output_of(self._grad_fn)[0]

    @grad_fn.setter
    def grad_fn(self, value) -> None:
        raise AttributeError("attribute 'grad_fn' of 'torch._C.TensorBase' objects is not writable")

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    @property
    def grad(self):
        if self._grad is None and self._grad_fn is not None and not self.retains_grad:  # (backward(inputs=) fills it)
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
                "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
                "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf "
                "Tensor by mistake, make sure you access the leaf Tensor instead. See "
                "github.com/pytorch/pytorch/pull/30531 for more information.", UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                            f"{type(value).__name__}")
        if value is not None and value._data.shape != self._data.shape:
            raise RuntimeError(f"attempting to assign a gradient of size '{list(value._data.shape)}' to a tensor of "
                               f"size '{list(self._data.shape)}'. Please ensure that the gradient and the tensor are "
                               "the same size".replace(", ", ","))
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None  # `del x.grad`, as in PyTorch

    @property
    def retains_grad(self) -> bool:
        return self._grad_fn is not None and self._grad_fn.retained is self

    def retain_grad(self) -> None:
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is not None:
            self._grad_fn.retained = self

    def _grad_edge(self):
        """Where a gradient for this tensor goes: its grad_fn, or its leaf's AccumulateGrad."""
        if self._grad_fn is not None:
            return self._grad_fn
        edge = self._accumulator
        if edge is None:
            edge = self._accumulator = AccumulateGrad(self)
        elif type(edge) is ViewWithoutGrad:  # a view made with grad mode off: no edge (None), as in PyTorch
            return None
        return edge

    def _accumulate(self, g) -> None:
        """Add a cotangent into .grad (in place, as PyTorch does, so references see the sum). A Tensor
        cotangent (create_graph=True) keeps its graph: .grad becomes it, or the old .grad plus it."""
        if isinstance(g, Tensor):
            if g._data.shape != self._data.shape:
                g = g.expand(*self._data.shape)
            if self._grad is not None:
                self._grad = self._grad + g
            elif g._requires_grad:  # PyTorch copies the incoming gradient into a fresh .grad (CopyBackwards)
                previous = state.update(grad=True)
                try:
                    self._grad = _apply("copy", (Tensor._make(np.zeros_like(self._data)), g))
                finally:
                    state.restore(previous, "grad")
            else:
                self._grad = Tensor._make(as_grad(g._data, self._data))
            return
        if self._grad is None:
            self._grad = Tensor._make(as_grad(g, self._data))
        else:
            accumulate(self._grad._data, g)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
        """Compute the gradient of this tensor w.r.t. the graph leaves (or `inputs`), adding into their `.grad`."""
        if inputs is not None:
            inputs = _input_list(inputs)
        _backward.run_backward([self], [gradient], inputs=inputs, retain_graph=retain_graph,
                               create_graph=create_graph, api="Tensor.backward")

    def register_hook(self, hook) -> RemovableHandle:
        """Run `hook(grad)` on this tensor's gradient each time it is computed; a hook that returns a Tensor
        replaces the gradient. Returns a handle whose `remove()` unregisters it."""
        return self._hook_on_edge("hooks", hook)

    def register_post_accumulate_grad_hook(self, hook) -> RemovableHandle:
        """Run `hook(tensor)` on a leaf after backward has accumulated into its `.grad`."""
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        return self._hook_on_edge("post_hooks", hook)

    def _hook_on_edge(self, kind: str, hook) -> RemovableHandle:
        """Register `hook` in the `kind` hooks (`hooks`, `post_hooks`) of where this tensor's gradient goes."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        edge = self._grad_edge()
        if edge is None:  # a view made with grad mode off: no gradient ever reaches it, so its hooks never run
            return RemovableHandle({})
        hooks = getattr(edge, kind)
        if hooks is None:
            hooks = {}
            setattr(edge, kind, hooks)
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def is_inference(self) -> bool:
        """Whether this tensor was made in inference mode (`torch.inference_mode`)."""
        return self._inference

    def detach(self) -> "Tensor":
        """A tensor without a graph on the same storage, with the same version counter (an in-place change of
        either is seen by the graph that saved the other)."""
        belief = _modes().belief
        if belief is not None and belief.keeps_graph:  # a learner who believes gradients flow through detach()
            return self.view_as(self)
        t = Tensor._make(self._data)
        t._vc = self._shared_version()
        return t

    def detach_(self) -> "Tensor":
        forward_ad = _modes().forward_ad
        if forward_ad is not None:
            forward_ad.inplace(self, None)
        self._grad_fn, self._requires_grad = None, False
        return self

    @property
    def data(self) -> "Tensor":
        return Tensor._make(self._data)

    @data.setter
    def data(self, value: "Tensor") -> None:
        self._data = value._data
