# A global step counter
import torch
step = 0
history = []


def train_step(w):
    global step
    step += 1
    loss = (w ** 2).sum()
    loss.backward()
    history.append(round(loss.item(), 4))


w = torch.tensor([1.0, -1.0], requires_grad=True)
for _ in range(3):
    train_step(w)
    with torch.no_grad():
        w -= 0.1 * w.grad
    w.grad.zero_()
print(step, history, w)


def make_counter():
    count = 0

    def hook(grad):
        nonlocal count
        count += 1
        return grad * 2
    return hook, lambda: count


hook, counted = make_counter()
v = torch.ones(2, requires_grad=True)
v.register_hook(hook)
(v * 3).sum().backward()
print(v.grad, counted())
