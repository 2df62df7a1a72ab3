# expect: ResourceLimitExceeded line 4
import torch
x = torch.ones(10**6)
y = x.reshape(-1, 1) * x
