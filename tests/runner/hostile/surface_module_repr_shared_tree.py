# expect: ResourceLimitExceeded line 6
import torch
s = torch.nn.Sequential(torch.nn.ReLU())
for i in range(30):
    s = torch.nn.Sequential(s, s)  # 2**30 paths: PyTorch's repr shows the shared module under each
print(s)
