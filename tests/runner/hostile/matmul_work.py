# expect: ResourceLimitExceeded line 4
import torch
a = torch.arange(10**6).reshape(1000, 1000)
c = a @ a
