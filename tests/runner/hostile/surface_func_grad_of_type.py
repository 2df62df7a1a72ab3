# expect: SnippetRejected line 4
import torch
g = torch.func.grad(type)  # the engine calls it as type(x, y, z): still refused, as a direct call is
g(torch.ones(()), "Name", ())
