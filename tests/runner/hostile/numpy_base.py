# expect: SnippetRejected line 4
import torch
a = torch.ones(3).numpy()
b = a.base
