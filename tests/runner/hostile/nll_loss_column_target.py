# expect: RuntimeError line 5
import torch
x = torch.ones(20000, 5, requires_grad=True)
t = torch.zeros(20000, 1, dtype=torch.int64)
l = torch.nn.functional.nll_loss(x, t)
