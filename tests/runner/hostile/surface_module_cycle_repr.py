# expect: ResourceLimitExceeded line 9
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return x
m = M()
s = torch.nn.Sequential(m)
m.inner = s  # a cycle: parameters() and modules() visit each module once, as PyTorch's; repr recurses
print(s)
