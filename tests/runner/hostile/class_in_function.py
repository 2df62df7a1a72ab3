# expect: SnippetRejected line 4
import torch.nn as nn
def make():
    class Net(nn.Module):
        pass
    return Net
