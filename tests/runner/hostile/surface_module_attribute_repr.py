# expect: ResourceLimitExceeded line 4
import torch
f = torch.nn.Flatten(list(range(10**6)))  # extra_repr shows start_dim
print(f)
