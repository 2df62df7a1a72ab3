# expect: ResourceLimitExceeded line 5
import torch
y = torch.ones(2, requires_grad=True) * 2
for i in range(10000):
    g = y.grad
