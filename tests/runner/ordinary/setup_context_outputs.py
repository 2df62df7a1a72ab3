# setup_context with several outputs (the "extending torch.func" example)
import torch
from torch.autograd import Function


class MyCube(Function):
    @staticmethod
    def forward(x):
        result = x ** 3
        dx = 3 * x ** 2
        return result, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        result = grad_output * dx + grad_dx * 6 * x
        return result


def my_cube(x):
    result, dx = MyCube.apply(x)
    return result


x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
y = my_cube(x)
y.sum().backward()
print(y, x.grad)
x.grad = None
result, dx = MyCube.apply(x)
(result.sum() + dx.sum()).backward()
print(result, dx, x.grad)
x.grad = None
result, dx = MyCube.apply(x)
dx.sum().backward()
print(x.grad)
g = torch.autograd.grad(my_cube(x).sum(), x, create_graph=True)[0]
print(g)
print(torch.autograd.functional.jacobian(my_cube, x))
