# expect: ResourceLimitExceeded line 6
import torch
import torch.nn as nn
class Loop(nn.Module):
    def forward(self, x):
        return self(x)
model = Loop()
y = model(torch.ones(2))
