# expect: TypeError line 4
import torch
s = "a" * 10000
t = torch.full((100,), s * 100)
