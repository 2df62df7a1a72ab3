# expect: SnippetRejected line 4
import torch.nn as nn
bases = [nn.Module]
class Net(bases[0]):
    pass
