# expect: SnippetRejected line 4
import torch
x = torch.ones(2)
s = "{0.__class__.__mro__}".format(x)
