"""The seed articles' examples as snippet files, shared by the runner's tests."""

MEAN = """import torch
tensor1 = torch.Tensor([[1,2,3], [4,5,6]])
tensor2 = torch.Tensor([[7,8,9], [10,11,12]])
tensor1.requires_grad_()
output_tensor = (tensor1 * tensor2).mean()
output_tensor.backward()
print(tensor1.grad)
"""
VECTOR = """import torch
inp = torch.tensor([1, 0], dtype=torch.float, requires_grad=True)
out = (inp+1).pow(2)
out.backward(torch.tensor([1, 1]))
print(inp.grad)
"""
EYE = """import torch
inp = torch.eye(5, requires_grad=True)
out = (inp+1).pow(2)
out.backward(torch.ones_like(inp), retain_graph=True)
print("First call\\n", inp.grad)
out.backward(torch.ones_like(inp), retain_graph=True)
second = inp.grad.clone()
inp.grad.zero_()
"""
CHAIN = """import torch
torch.manual_seed(0)
x = torch.randn(3,3, requires_grad=True)
g = 2*(x**3)
z = g.sum()/12
z.backward()
expected = (x**2)/2
"""
NON_SCALAR = """import torch
x = torch.randn(3,3, requires_grad=True)
g = 2*(x**3)
z = g/12
z.backward()
"""
