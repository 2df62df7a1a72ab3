# expect: SnippetRejected line 5
import torch
a = torch.ones(3).numpy()
f = a.tolist
g = f.__self__
