# expect: SnippetRejected line 4
import torch.nn as nn
class Net(nn.Module):
    show = vars
