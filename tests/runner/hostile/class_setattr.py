# expect: SnippetRejected line 4
import torch.nn as nn
class Open(nn.Module):
    def __setattr__(self, name, value):
        pass
