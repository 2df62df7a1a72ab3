# expect: ResourceLimitExceeded line 4
import torch
a = torch.ones(100000).numpy()
b = a == [[1.0]] * 100000
