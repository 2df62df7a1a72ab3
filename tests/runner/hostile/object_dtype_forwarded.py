# expect: TypeError line 4
# torch.sum forwards to the argument's own .sum: a numpy array's, with a dtype
import torch
a = torch.sum(torch.ones(3).numpy(), None, "O")
