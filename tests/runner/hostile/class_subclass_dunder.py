# expect: SnippetRejected line 7
import torch.nn as nn
class Base(nn.Module):
    def forward(self, x):
        return x
class Child(Base):
    def __repr__(self):
        return "child"
