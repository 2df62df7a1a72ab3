# expect: ResourceLimitExceeded line 4
import torch
x = torch.ones(100000)
j = torch.autograd.functional.jacobian(lambda v: v * 2, x, create_graph=True)
