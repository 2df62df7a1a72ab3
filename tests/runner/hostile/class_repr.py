# expect: SnippetRejected line 4
import torch.nn as nn
class Loud(nn.Module):
    def __repr__(self):
        return "x" * 10
