# expect: ResourceLimitExceeded line 5
import torch
x = torch.ones(100)
f = lambda v: (v.reshape(100, 1) * torch.ones(1, 80000))[:, 0]  # the batch of 100 cotangents meets 8e6 elements
j = torch.autograd.functional.jacobian(f, x)
