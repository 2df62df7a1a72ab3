# expect: SnippetRejected line 5
import torch.nn as nn
class Net(nn.Module):
    pass
text = "{0.training.__class__}".format(Net())
