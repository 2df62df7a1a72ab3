# expect: SnippetRejected line 4
import torch.nn as nn
class Outer(nn.Module):
    class Inner(nn.Module):
        pass
