# expect: SnippetRejected line 4
import torch.nn as nn
class Net(nn.Module):
    def forward(self, x, hook=breakpoint):
        return hook(x)
