# expect: RuntimeError line 8
import torch
w = torch.ones(4000, requires_grad=True)
w.grad = torch.ones(4000)
opt = torch.optim.Adam([w])
opt.step()
opt.state[w]["exp_avg"] = torch.ones(4000, 1)
opt.step()
