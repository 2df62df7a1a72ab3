# expect: SnippetRejected line 6
import torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.kind = type(self).__dict__
net = Net()
