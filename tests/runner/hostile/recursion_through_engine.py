# expect: ResourceLimitExceeded line 4
import torch
def f(v):
    return torch.autograd.functional.jacobian(f, v)
f(torch.ones(2))
