# expect: SnippetRejected line 5
from torch.autograd import Function
class Exp(Function):
    pass
f = Exp.apply.__func__
