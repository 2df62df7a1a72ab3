# expect: SnippetRejected line 6
import torch.nn as nn
class Net(nn.Module):
    pass
maker = type(Net)
Other = maker("Other", (), {})
