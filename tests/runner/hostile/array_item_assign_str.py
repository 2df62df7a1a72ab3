# expect: SnippetRejected line 4
import torch
a = torch.ones(3).numpy()
a[0] = "__import__('os').system('id')"
