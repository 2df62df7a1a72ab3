# Module.apply for weight initialisation
import torch
import torch.nn as nn


def init_weights(m):
    if isinstance(m, nn.Linear):
        with torch.no_grad():
            m.weight.fill_(0.01)
            m.bias.fill_(0.0)


seen = []
model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 1), nn.Sigmoid()))
returned = model.apply(init_weights)
model.apply(lambda m: seen.append(type(m).__name__))
print(returned is model, seen)
print(model(torch.ones(1, 2)))
print([p.sum().item() for p in model.parameters()])
