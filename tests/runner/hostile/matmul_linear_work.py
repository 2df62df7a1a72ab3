# expect: ResourceLimitExceeded line 5
import torch
import torch.nn.functional as F
x = torch.ones(1500, 1500)
y = F.linear(x, x)
