# expect: ResourceLimitExceeded line 4
import torch
x = torch.ones(3000)
h = torch.autograd.functional.hessian(lambda v: (v ** 3).sum(), x, create_graph=True)
