# expect: SnippetRejected line 4
import torch.nn as nn
class Net(nn.Module):
    forward = lambda self, x: x
