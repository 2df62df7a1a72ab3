# expect: SnippetRejected line 7
import torch.nn as nn
class Net(nn.Module):
    def forward(self, x):
        return x
net = Net()
g = net.forward.__globals__
