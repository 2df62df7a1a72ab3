# Hessians and Jacobians from torch.autograd.functional
import torch
from torch.autograd.functional import hessian, jacobian
import torch.autograd.functional as AF


def f(x):
    return (x ** 3).sum()


def g(x):
    return x ** 2 + x.sin()


x = torch.tensor([1.0, 2.0])
print(hessian(f, x))
print(jacobian(g, x))
print(AF.hessian(f, x), AF.vjp(g, x, torch.ones(2))[1])
