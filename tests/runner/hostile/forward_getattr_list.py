# expect: TypeError line 3
import torch
n = torch.numel([1, 2, 3])
