# expect: SnippetRejected line 4
from torch.autograd import Function
class Exp(Function):
    @classmethod
    def make(cls):
        return cls
