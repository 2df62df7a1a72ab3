# expect: SnippetRejected line 4
import torch
def f(x):
    return x.detach().numpy().var(0, "complex128")
for r in torch.autograd.functional.vjp(f, torch.ones(2), torch.ones(2)):
    print(r)
