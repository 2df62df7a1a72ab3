# expect: SnippetRejected line 5
import torch
w = torch.ones(2, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
opt.step("{0.__class__.__mro__}".format)  # the engine calls the closure: through the call guard
