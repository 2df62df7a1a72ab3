# expect: SnippetRejected line 5
from torch.autograd import Function
class Exp(Function):
    @classmethod
    def __init_subclass__(cls):
        return cls
