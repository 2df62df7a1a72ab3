# Errors a learner meets, caught and explained
import torch


def describe(fn):
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, "|", str(e).split("\n")[0][:60])


x = torch.ones(3, requires_grad=True)
describe(lambda: (x * 2).backward())
describe(lambda: x.numpy())
describe(lambda: torch.ones(2) @ torch.ones(3))
y = (x * 2).sum()
y.backward()
describe(lambda: y.backward())
describe(lambda: x.grad.zero_().add_(1).view(4))
assert torch.allclose(x.grad, torch.ones(3)), "gradient is ones"
print("done")
