# Gradient hooks recorded in a dict, named with a closure
import torch
seen = {}


def remember(name):
    def hook(grad):
        seen[name] = grad.clone()
    return hook


x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * x
h.register_hook(remember("h"))
h.retain_grad()
out = (h * torch.tensor([3.0, 4.0])).sum()
out.backward()
for name, g in sorted(seen.items()):
    print(name, g)
print(h.grad, x.grad, x.is_leaf, h.is_leaf)
