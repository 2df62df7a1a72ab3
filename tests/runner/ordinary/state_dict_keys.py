# Saving and restoring weights as the "Saving and loading models" tutorial does: the state_dict is an OrderedDict
import torch
from torch import nn

model = nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))
sd = model.state_dict()
print(list(sd.keys()))
for name, value in sd.items():
    print(name, tuple(value.shape))
print(sd.get("2.bias").shape, len(sd.values()))
copy = nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))
print(copy.load_state_dict(sd))
print(all(torch.equal(a, b) for a, b in zip(model.parameters(), copy.parameters())))
