# expect: ResourceLimitExceeded line 4
import torch
x = torch.ones(30000)
j = torch.func.jacfwd(lambda v: v.sum())(x)  # one seed per input element: 30000 x 30000
