# expect: SnippetRejected line 3
from torch.autograd import Function
subs = Function.__subclasses__()
