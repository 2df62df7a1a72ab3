# expect: ResourceLimitExceeded line 4
import torch
x = torch.ones(10**6, 1)
y = x @ x.t()
