# expect: SnippetRejected line 4
from torch.autograd import Function
class Maker(Function):
    def __new__(cls):
        return 1
