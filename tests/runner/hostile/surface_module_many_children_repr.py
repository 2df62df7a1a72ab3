# expect: ResourceLimitExceeded line 4
import torch
s = torch.nn.Sequential(*[torch.nn.ReLU()] * 100000)
print(s)
