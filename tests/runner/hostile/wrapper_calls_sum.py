# expect: ResourceLimitExceeded line 5
# no_grad()(f) returns an engine wrapper that calls f: it must not run a builtin unchecked
import torch
f = torch.no_grad()(sum)
print(f(x for x in range(10**13)))
