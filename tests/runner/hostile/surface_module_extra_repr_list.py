# expect: AttributeError line 7
import torch
class M(torch.nn.Module):
    def extra_repr(self):
        return [torch.ones(100)] * 10**6  # PyTorch's repr splits a str: never str() of this list
m = M()
print(m)
