# expect: SnippetRejected line 4
import torch
s = torch.nn.Sequential("{0.__class__}".format)
s(torch.ones(1))
