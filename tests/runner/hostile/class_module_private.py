# expect: SnippetRejected line 6
import torch.nn as nn
class Net(nn.Module):
    pass
net = Net()
p = net._parameters
