# expect: SnippetRejected line 3
import torch.nn as nn
class Net(nn.Module):
    def parameters(self, recurse=True):
        return [1]
