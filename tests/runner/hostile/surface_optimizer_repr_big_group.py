# expect: ResourceLimitExceeded line 6
import torch
w = torch.ones(2, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
opt.param_groups[0]["note"] = [torch.ones(100)] * 100000
print(opt)
