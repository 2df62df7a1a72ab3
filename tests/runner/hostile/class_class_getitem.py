# expect: SnippetRejected line 4
import torch.nn as nn
class Box(nn.Module):
    def __class_getitem__(cls, item):
        return item
