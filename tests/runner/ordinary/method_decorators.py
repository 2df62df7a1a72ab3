# Method decorators: @torch.no_grad() on a method (nanoGPT's generate), @classmethod, @property
import torch
from torch import nn


class TinyModel(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.width = width

    @classmethod
    def from_config(cls, config):
        return cls(config["width"])

    @property
    def num_params(self):
        return sum(p.numel() for p in self.parameters())

    def forward(self, x):
        return torch.tanh(self.fc(x))

    @torch.no_grad()
    def generate(self, x, steps):
        for _ in range(steps):
            x = self(x)
        return x


model = TinyModel.from_config({"width": 3})
with torch.no_grad():
    model.fc.weight.copy_(torch.eye(3) * 0.5)
    model.fc.bias.fill_(0.1)
out = model.generate(torch.ones(1, 3), steps=2)
print(model.num_params, out, out.requires_grad, divmod(7, 2))
print(model(torch.ones(1, 3)).requires_grad)
