# expect: SnippetRejected line 5
import torch.nn as nn
def make_base():
    return nn.Module
class Net(make_base()):
    pass
