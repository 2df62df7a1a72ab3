# expect: TypeError line 4
import torch
x = torch.zeros(3)
x.fill_("1" * 5000)
