# expect: ResourceLimitExceeded line 5
# cat's backward hands every input to every input's rule: quadratic work in one engine call
import torch
xs = [torch.ones(1, requires_grad=True)] * 500
y = torch.cat(xs * 100).sum()
y.backward()
