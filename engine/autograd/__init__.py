"""`torch.autograd`: gradients without touching `.grad` (`grad`, `backward`), and its submodules as PyTorch has
them — `function` (custom Functions), `functional` (jacobian, hessian, vjp, jvp, hvp, vhp), `forward_ad`,
`gradcheck`, `anomaly_mode` and `graph`."""
from __future__ import annotations

from engine.autograd import forward_ad, functional, graph
from engine.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly
from engine.autograd.function import Function
from engine.autograd.gradcheck import gradcheck, gradgradcheck
from engine.backward import grad_output_list, gradients, run_backward, tensor_tuple
from engine.tensor import _input_list

__all__ = ["Function", "backward", "detect_anomaly", "forward_ad", "functional", "grad", "gradcheck",
           "gradgradcheck", "graph", "set_detect_anomaly"]


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """d outputs / d inputs (a tuple of Tensors), as `torch.autograd.grad`; with `create_graph=True` the
    gradients have a graph of their own, so they can be differentiated again."""
    return gradients(outputs, inputs, grad_outputs, retain_graph=retain_graph, create_graph=create_graph,
                     allow_unused=allow_unused, is_grads_batched=is_grads_batched,
                     materialize_grads=materialize_grads, api="autograd.grad")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """`torch.autograd.backward(tensors, grad_tensors)`: accumulate into the leaves' `.grad` (only into
    `inputs`, leaves or not, when given)."""
    tensors = tensor_tuple(tensors)
    if inputs is not None:
        inputs = _input_list(inputs)
    run_backward(tensors, grad_output_list(grad_tensors, len(tensors)), inputs=inputs, retain_graph=retain_graph,
                 create_graph=create_graph, api="autograd.backward")
