# expect: SnippetRejected line 4
from torch import nn
class Named(nn.Module):
    def __set_name__(self, owner, name):
        self.owner = owner
