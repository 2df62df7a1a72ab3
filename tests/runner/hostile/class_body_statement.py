# expect: SnippetRejected line 4
import torch.nn as nn
class Net(nn.Module):
    for i in range(3):
        pass
