"""Wrong answers a learner holding each misconception would type, worked out by hand with real PyTorch.

Each entry: the bundled step, the misconception, and a function computing that learner's answer with
`torch` itself — the belief applied by hand to the step's program (never by the engine's buggy rules, which
these answers check). A learner copies numbers from a printout: 4 decimals (`typed`).
"""
from __future__ import annotations

import numpy as np


def _t(*args, **kwargs):
    import torch

    return torch.tensor(*args, **kwargs)


def mean_grad_without_n():
    t1 = _t([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    t2 = _t([[7., 8., 9.], [10., 11., 12.]])
    (t1 * t2).sum().backward()   # the mean's 1/6 forgotten
    return t1.grad


def mean_grad_value():
    t1 = _t([[1., 2., 3.], [4., 5., 6.]])
    return t1 * _t([[7., 8., 9.], [10., 11., 12.]])   # the product's value, not its gradient


def tensor1_again_replaced():
    t1 = _t([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    t2 = _t([[7., 8., 9.], [10., 11., 12.]], requires_grad=True)
    (t1 * t2).mean().backward()   # only the second backward: the first one's gradient "replaced"
    return t1.grad


def eye_second_replaced():
    import torch

    inp = torch.eye(5, requires_grad=True)
    (inp + 1).pow(2).backward(torch.ones_like(inp))   # one call's gradient only
    return inp.grad


def generator_overwrites_replaced():
    g, d = _t([1., 2.]), _t([3., -1.], requires_grad=True)
    (-(d * (g * 2)).sum()).backward()   # the second backward's gradient, the first forgotten
    return d.grad


def row_times_matrix_averaged():
    b = _t([[10., 20., 30.], [40., 50., 60.]])
    return b.mean(dim=0)   # each x[j] meets b[:, j]: averaged over the rows instead of summed


def bias_mean_averaged():
    import torch

    out = torch.zeros(2, 3, requires_grad=True)
    out.mean().backward()
    return out.grad.mean(dim=0)   # 1/6 per copy, averaged (not summed) over the two rows


def bias_mean_without_n():
    import torch

    out = torch.zeros(2, 3, requires_grad=True)
    out.sum().backward()
    return out.grad.sum(dim=0)   # summed over the copies, but the mean's 1/6 forgotten


def column_times_row_averaged():
    r = _t([1., 2., 3.])
    return r.mean().expand(2, 1)   # each c[i] meets the whole row r: averaged instead of summed


def two_paths_one_term():
    x = _t([[1., 2., 3.], [4., 5., 6.]])
    s = x.sum(dim=1, keepdim=True)
    return s.expand(2, 3)   # d(x·s)/dx taken as s only (the path through s forgotten)


def column_means_wrong_dim():
    v = _t([1., 2., 3.])
    return (v / 3).expand(2, 3)   # divided by the 3 columns instead of the 2 rows


def column_means_without_n():
    return _t([1., 2., 3.]).expand(2, 3)   # the mean's 1/2 forgotten


def softmax_one_diagonal():
    import torch

    s = torch.softmax(_t([1., 2., 3.]), dim=0)
    return torch.stack([s[0] * (1 - s[0]), torch.tensor(0.), torch.tensor(0.)])  # ds0/dz0 only


def softmax_weighted_diagonal():
    import torch

    s = torch.softmax(_t([1., 2., 3.]), dim=0)
    return _t([1., 2., 3.]) * s * (1 - s)   # diag(s - s²) applied to v


def detach_flows():
    x = _t([1., 2., 3.], requires_grad=True)
    ((x * 2) * x).sum().backward()   # as if y.detach() were y
    return x.grad


def leaf_through_y_missing_inner():
    x = _t([1., 2., 3.])
    return 2 * (x * 2)   # d(y²)/dy = 2y, without dy/dx = 2


def log_then_mul_missing_inner():
    return _t([2., 2., 2.])   # d(2·log x)/dx taken as 2, without 1/x


def relu_right_side():
    x = _t([-1., 1e-6, 2.], requires_grad=True)   # 0 taken from the right
    x.relu().sum().backward()
    return x.grad


def abs_right_side():
    x = _t([-1., 1e-6, 2.], requires_grad=True)
    x.abs().sum().backward()
    return x.grad


def abs_left_side():
    x = _t([-1., -1e-6, 2.], requires_grad=True)
    x.abs().sum().backward()
    return x.grad


def maximum_tie_right():
    import torch

    x = _t([-1., 1e-6, 1.], requires_grad=True)   # the tie at 0 decided for x
    torch.maximum(x, torch.zeros(3)).sum().backward()
    return x.grad


def stack_jacobian_times_v():
    import torch

    def f(x):
        return torch.stack([x[0] * x[1], x[0] ** 2])

    jac = torch.autograd.functional.jacobian(f, _t([2., 3.]))
    return jac @ _t([1., 10.])   # J·v: v multiplied into J's columns


def square_w_no_transpose():
    import torch

    return _t([[1., 2.], [3., 4.]]) @ torch.ones(2, 2)   # X @ grad instead of Xᵀ @ grad


def zero_grad_zeros():
    import torch

    w = _t([1., 2.], requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    opt.step()
    opt.zero_grad(set_to_none=False)   # what the learner believes zero_grad() does
    return w.grad


def small_backward_ones():
    import torch

    return torch.ones(2)


CORPUS = [
    ("trying-autograd:mean-grad", "mean-without-n", mean_grad_without_n),
    ("trying-autograd:mean-grad", "value-not-gradient", mean_grad_value),
    ("trying-autograd:tensor1-grad-again", "grad-replaced", tensor1_again_replaced),
    ("tensor-gradient-jacobian:eye-second-call", "grad-replaced", eye_second_replaced),
    ("two-losses:generator-overwrites", "grad-replaced", generator_overwrites_replaced),
    ("broadcasting-gradients:row-times-matrix", "broadcast-not-summed", row_times_matrix_averaged),
    ("broadcasting-gradients:bias-mean", "broadcast-not-summed", bias_mean_averaged),
    ("broadcasting-gradients:bias-mean", "mean-without-n", bias_mean_without_n),
    ("broadcasting-gradients:column-times-row", "broadcast-not-summed", column_times_row_averaged),
    ("reduction-gradients:two-paths", "product-rule-one-term", two_paths_one_term),
    ("reduction-gradients:column-means", "wrong-dim", column_means_wrong_dim),
    ("reduction-gradients:column-means", "mean-without-n", column_means_without_n),
    ("softmax-jacobian:one-probability", "softmax-diagonal-only", softmax_one_diagonal),
    ("softmax-jacobian:weighted-vjp", "softmax-diagonal-only", softmax_weighted_diagonal),
    ("leaf-detach-no-grad:detach-stops", "flows-through-detach", detach_flows),
    ("leaf-detach-no-grad:leaf-grad-through-y", "chain-missing-inner", leaf_through_y_missing_inner),
    ("in-place-and-views:log-then-mul", "chain-missing-inner", log_then_mul_missing_inner),
    ("non-differentiable-points:relu-at-zero", "kink-other-side", relu_right_side),
    ("non-differentiable-points:abs-at-zero", "kink-other-side", abs_right_side),
    ("non-differentiable-points:abs-at-zero", "kink-other-side", abs_left_side),
    ("non-differentiable-points:maximum-tie", "kink-other-side", maximum_tie_right),
    ("tensor-gradient-jacobian:small-backward", "all-ones", small_backward_ones),
    ("tensor-gradient-jacobian:stack-vjp-not-jv", "jacobian-times-v", stack_jacobian_times_v),
    ("matmul-gradients:square-w-grad", "matmul-no-transpose", square_w_no_transpose),
    ("training-loop:grad-after-zero-grad", "zero-grad-zeros", zero_grad_zeros),
]


def typed(value) -> str:
    """The answer as a learner types it from a printout: 4 decimals (an integer-valued number as such)."""
    array = np.round(np.asarray(value.detach().numpy() if hasattr(value, "detach") else value, dtype=np.float64), 4)
    array = array + 0.0   # no -0.0
    return repr(array.tolist()) if array.ndim else repr(float(array))
