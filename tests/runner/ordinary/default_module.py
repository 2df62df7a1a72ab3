# A parameter default that is not a literal
import torch


def train(model, x, y, loss_fn=torch.nn.MSELoss(), lr=0.1, shape=(1, 2)):
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    loss = loss_fn(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


def scale(v, factor=2 ** 3, unit=torch.ones(2)):
    return v * factor + unit


model = torch.nn.Linear(2, 1)
with torch.no_grad():
    model.weight.fill_(0.5)
    model.bias.fill_(0.0)
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
y = torch.tensor([[1.0], [2.0]])
print(round(train(model, x, y), 4), round(train(model, x, y), 4))
print(scale(torch.tensor([1.0, 2.0])), (lambda a, b=[1, 2]: a + len(b))(1))
