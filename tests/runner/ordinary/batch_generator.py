# A generator of mini-batches
import torch


def batches(x, y, batch_size):
    for i in range(0, len(x), batch_size):
        yield x[i:i + batch_size], y[i:i + batch_size]


def forever(values):
    yield from values


x = torch.arange(10.0).reshape(5, 2)
y = torch.arange(5.0)
w = torch.zeros(2, requires_grad=True)
for step, (xb, yb) in enumerate(batches(x, y, 2)):
    loss = ((xb @ w - yb) ** 2).mean()
    loss.backward()
    print(step, xb.shape, round(loss.item(), 4))
print(w.grad)
gen = batches(x, y, 4)
first = next(gen)
print(first[0], next(gen)[1], next(gen, "done"))
print(list(forever([1, 2])), sum(v for v in forever(range(4))))
it = iter([3, 4])
print(next(it), next(it))
