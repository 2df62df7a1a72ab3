# expect: TypeError line 7
import torch
w = torch.ones(8000, requires_grad=True)
w.grad = torch.ones(8000)
opt = torch.optim.SGD([w], lr=0.1)
opt.param_groups[0]["lr"] = [[0.1]] * 8000  # lr * grad would broadcast to 8000 x 8000, unsized
opt.step()
