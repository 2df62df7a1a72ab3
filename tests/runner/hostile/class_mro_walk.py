# expect: SnippetRejected line 5
import torch.nn as nn
class Net(nn.Module):
    pass
chain = Net.mro()
