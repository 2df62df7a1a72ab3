# expect: TypeError line 7
import torch
w = torch.ones(4000, requires_grad=True)
w.grad = torch.ones(4000)
opt = torch.optim.Adam([w])
opt.param_groups[0]["eps"] = torch.ones(4000, 1).numpy()
opt.step()
