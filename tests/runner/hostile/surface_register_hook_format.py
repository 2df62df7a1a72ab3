# expect: SnippetRejected line 5
import torch
x = torch.ones(2, requires_grad=True)
x.register_hook("{0.__class__.__base__}".format)
(x * 2).sum().backward()
