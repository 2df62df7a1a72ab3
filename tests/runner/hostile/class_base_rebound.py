# expect: SnippetRejected line 5
import torch
from torch.autograd import Function
Function = torch.Tensor
class Exp(Function):
    pass
