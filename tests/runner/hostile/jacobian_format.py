# expect: SnippetRejected line 4
import torch
x = torch.ones(2)
J = torch.autograd.functional.jacobian("{0.__class__}".format, x)
