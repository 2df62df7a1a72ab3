# expect: SnippetRejected line 5
# a callback returns a raw array of another dtype; unpacking the result must not let it through
import torch
def f(x):
    return x.detach().numpy().std(None, "S5")
y, v = torch.autograd.functional.vjp(f, torch.ones(2), torch.ones(2))
