# expect: ResourceLimitExceeded line 4
import torch
torch.set_printoptions(profile="full")
print(torch.ones(1000, 1000))
