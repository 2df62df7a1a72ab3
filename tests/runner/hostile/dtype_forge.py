# expect: SnippetRejected line 3
import torch
d = torch.dtype("x", "U100000")
x = torch.ones(10000, dtype=d)
