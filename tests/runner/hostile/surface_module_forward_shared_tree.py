# expect: ResourceLimitExceeded line 4
import torch
class Same(torch.nn.Module):
    def forward(self, x):
        return x  # no call, no loop: only the tick on entry counts it
s = torch.nn.Sequential(Same())
for i in range(30):
    s = torch.nn.Sequential(s, s)
s(torch.ones(1))
