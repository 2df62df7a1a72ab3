# expect: SnippetRejected line 6
import torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        super().training = False
