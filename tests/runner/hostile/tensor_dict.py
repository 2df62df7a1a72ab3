# expect: SnippetRejected line 4
import torch
x = torch.ones(2)
d = x.__dict__
