# expect: SnippetRejected line 4
import torch.nn as nn
class Late(nn.Module):
    def __del__(self):
        print("bye")
