# expect: ResourceLimitExceeded line 5
import torch
x = torch.ones(2, requires_grad=True)
def hook(g):
    (x * 2).sum().backward()
    return g
x.register_hook(hook)
(x * 2).sum().backward()
