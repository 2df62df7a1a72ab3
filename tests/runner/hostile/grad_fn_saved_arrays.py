# expect: SnippetRejected line 4
import torch
x = torch.ones(3, requires_grad=True)
saved = (x * 2).grad_fn.arrays
