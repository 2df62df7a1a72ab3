# expect: ResourceLimitExceeded line 5
import torch
def f(x):
    return x.sum() * torch.ones(10000)
j = torch.autograd.functional.jacobian(f, torch.ones(1000))
