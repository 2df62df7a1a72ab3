# expect: SnippetRejected line 3
import torch.nn as nn
super = print
class Net(nn.Module):
    pass
