# expect: SnippetRejected line 4
import torch.nn as nn
class Pickled(nn.Module):
    def __reduce__(self):
        return (print, ("x",))
