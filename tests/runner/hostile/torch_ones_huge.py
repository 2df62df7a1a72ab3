# expect: ResourceLimitExceeded line 3
import torch
x = torch.ones(10**9)
