# Second derivatives with create_graph, and torch.autograd.grad
import torch
x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
dy_dx, = torch.autograd.grad(y, x, create_graph=True)
d2y_dx2, = torch.autograd.grad(dy_dx, x)
print(dy_dx, d2y_dx2)
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = (w.exp() * w).sum()
grads = torch.autograd.grad(out, [w], retain_graph=True)
print([round(v, 4) for v in grads[0].tolist()])
print({name: round(g.norm().item(), 4) for name, g in zip(["w"], grads)})
