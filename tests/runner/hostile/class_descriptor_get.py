# expect: SnippetRejected line 6
from torch import nn
class Sneaky(nn.Module):
    def forward(self, x):
        return x
    def __get__(self, obj, owner=None):
        return owner
