# expect: AttributeError line 3
import torch
n = torch.ones(2).__name__
