# expect: ResourceLimitExceeded line 4
import torch
x = torch.ones(1000, 1000)
y = x[[0] * 10**6]
