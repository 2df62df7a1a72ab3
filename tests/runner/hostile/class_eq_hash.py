# expect: SnippetRejected line 4
import torch.nn as nn
class Same(nn.Module):
    def __eq__(self, other):
        return True
