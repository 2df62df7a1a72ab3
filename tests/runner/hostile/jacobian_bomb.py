# expect: ResourceLimitExceeded line 3
import torch
j = torch.autograd.functional.jacobian(lambda v: v * 2, torch.ones(10**5))
