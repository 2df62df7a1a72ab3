# expect: SnippetRejected line 5
import torch.nn as nn
class Net(nn.Module):
    def forward(self, x):
        return vars(self)
