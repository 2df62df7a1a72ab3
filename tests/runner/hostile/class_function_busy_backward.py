# expect: ResourceLimitExceeded line 11
import torch
from torch.autograd import Function
class Busy(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        n = 0
        while True:
            n = n + 1
        return g
x = torch.ones(2, requires_grad=True)
Busy.apply(x).sum().backward()
