# expect: ResourceLimitExceeded line 3
import torch
x = torch.Tensor(100000, 100000)
