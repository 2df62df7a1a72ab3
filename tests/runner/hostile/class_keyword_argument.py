# expect: SnippetRejected line 3
import torch.nn as nn
class Net(nn.Module, flavour=1):
    pass
