# The class name of a graph node
import torch
x = torch.ones(2, requires_grad=True)
y = x * 3
z = y.sum()
print(type(y.grad_fn).__name__, type(z.grad_fn).__name__)
print(type(y.grad_fn))
print(y.grad_fn.name())
node = z.grad_fn
while node is not None:
    print(type(node).__name__)
    node = node.next_functions[0][0] if node.next_functions else None
print(isinstance(y.grad_fn, type(y.grad_fn)))
