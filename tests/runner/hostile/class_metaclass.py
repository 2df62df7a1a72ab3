# expect: SnippetRejected line 3
import torch
class Net(torch.nn.Module, metaclass=type):
    pass
