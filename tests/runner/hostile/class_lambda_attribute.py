# expect: SnippetRejected line 4
import torch.nn as nn
class Net(nn.Module):
    __call__ = lambda self, x: x
