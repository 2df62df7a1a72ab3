# expect: ResourceLimitExceeded line 4
import torch
x = torch.ones(10**6, dtype=torch.float64, requires_grad=True)
torch.autograd.gradcheck(torch.sin, (x,))  # two full Jacobians, input x output
