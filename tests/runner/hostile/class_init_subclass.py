# expect: SnippetRejected line 4
import torch.nn as nn
class Base(nn.Module):
    def __init_subclass__(cls, **kwargs):
        print(cls)
