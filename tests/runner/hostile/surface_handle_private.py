# expect: SnippetRejected line 4
import torch
h = torch.ones(2, requires_grad=True).register_hook(lambda g: g)
hooks = h._hooks
