# The Jacobian and vector-Jacobian products of (t1 * t2).mean()
import torch
t1 = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
t2 = torch.tensor([[0.5, 1.0, 1.5], [2.0, 2.5, 3.0]])
(t1 * t2).mean().backward()
print(t1.grad)
print(torch.allclose(t1.grad, t2 / 6))
out = t1 * t2
v = torch.ones_like(out)
t1.grad = None
out.backward(v)
print(t1.grad)


def f(a):
    return (a * t2).sum(dim=1)


J = torch.autograd.functional.jacobian(f, t1.detach())
print(J.shape)
print(torch.func.grad(lambda a: (a ** 2).sum())(torch.tensor([1.0, 2.0])))
