# The two-argument super() of older tutorials
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc = nn.Linear(2, 1)

    def forward(self, x):
        return self.fc(x)


class Deeper(Net):
    def __init__(self):
        super(Deeper, self).__init__()
        self.scale = 2.0

    def forward(self, x):
        return super(Deeper, self).forward(x) * self.scale


net = Deeper()
with torch.no_grad():
    net.fc.weight.fill_(0.5)
    net.fc.bias.zero_()
print(net)
print(net(torch.tensor([[1.0, 3.0]])))
