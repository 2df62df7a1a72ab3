# expect: SnippetRejected line 4
import torch.nn as nn
class Hooked(nn.Module):
    def _named_members(self, prefix, recurse):
        return []
