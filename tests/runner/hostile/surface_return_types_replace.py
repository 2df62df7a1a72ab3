# expect: SnippetRejected line 4
import torch
r = torch.ones(2, 3).max(dim=0)
f = r._replace
