# Private attributes of the learner's own classes (self._name), a property over one
import torch
from torch import nn


class Config:
    def __init__(self, lr=0.1):
        self._lr = lr
        self._history = []

    @property
    def lr(self):
        return self._lr

    def decay(self, factor):
        self._lr *= factor
        self._history.append(self._lr)
        return self


class Scaled(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self._scale = scale
        self.fc = nn.Linear(2, 1)

    def forward(self, x):
        return self.fc(x) * self._scale


cfg = Config().decay(0.5).decay(0.5)
print(cfg.lr, hasattr(cfg, "lr"))
m = Scaled(3.0)
with torch.no_grad():
    m.fc.weight.fill_(1.0)
    m.fc.bias.fill_(0.0)
print(m(torch.tensor([[1.0, 2.0]])), len(list(m.parameters())))
