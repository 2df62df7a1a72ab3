# expect: ResourceLimitExceeded line 6
import torch
s = torch.nn.Sequential(torch.nn.ReLU())
for i in range(30):
    s = torch.nn.Sequential(s, s)
text = str([s])
