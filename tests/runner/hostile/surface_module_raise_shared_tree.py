# expect: ValueError line 6
import torch
s = torch.nn.Sequential(torch.nn.ReLU())
for i in range(30):
    s = torch.nn.Sequential(s, s)
raise ValueError(s, 1)  # the runner's message shows <Sequential>, never the 2**30-path repr
