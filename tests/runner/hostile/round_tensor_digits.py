# expect: ResourceLimitExceeded line 3
import torch
r = round(5, torch.tensor(-10**9))
