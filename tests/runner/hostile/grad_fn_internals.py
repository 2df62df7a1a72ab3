# expect: SnippetRejected line 4
import torch
x = torch.ones(3, requires_grad=True)
rule = (x * 2).grad_fn.op
