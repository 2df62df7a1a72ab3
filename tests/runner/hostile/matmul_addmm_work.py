# expect: ResourceLimitExceeded line 4
import torch
x = torch.ones(1500, 1500)
y = torch.ones(1500).addmm(x, x)
