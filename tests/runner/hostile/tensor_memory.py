# expect: ResourceLimitExceeded line 3
import torch
xs = [torch.ones(10**6) for i in range(100)]
