# expect: RuntimeError line 9
import torch
w = torch.ones(4000, requires_grad=True)
w.grad = torch.ones(4000)
opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
opt.step()
opt.state[w]["momentum_buffer"] = torch.ones(4000, 1)  # would broadcast with the grad to 4000 x 4000
w.grad = torch.ones(4000)
opt.step()
