# A training loop in the style of "Optimizing model parameters"
import torch
from torch import nn

torch.manual_seed(0)
X = torch.linspace(-1, 1, 8).reshape(8, 1)
Y = 3 * X + 0.5
model = nn.Sequential(nn.Linear(1, 4), nn.Tanh(), nn.Linear(4, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.full(p.shape, 0.3))
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def train_loop(data, model, loss_fn, optimizer, batch_size=4):
    size = len(data[0])
    model.train()
    for batch in range(size // batch_size):
        xb = data[0][batch * batch_size:(batch + 1) * batch_size]
        yb = data[1][batch * batch_size:(batch + 1) * batch_size]
        pred = model(xb)
        loss = loss_fn(pred, yb)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        loss, current = loss.item(), batch * batch_size + len(xb)
        print(f"loss: {loss:>7.4f}  [{current:>5d}/{size:>5d}]")


def test_loop(data, model, loss_fn):
    model.eval()
    with torch.no_grad():
        test_loss = loss_fn(model(data[0]), data[1]).item()
    print(f"Test Error: \n Avg loss: {test_loss:>8.4f} \n")


for t in range(3):
    print(f"Epoch {t+1}\n-------------------------------")
    train_loop((X, Y), model, loss_fn, optimizer)
    test_loop((X, Y), model, loss_fn)
print("Done!")
