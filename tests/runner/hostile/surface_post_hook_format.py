# expect: SnippetRejected line 5
import torch
x = torch.ones(2, requires_grad=True)
x.register_post_accumulate_grad_hook("{0.grad.grad_fn}".format)
(x * 2).sum().backward()
