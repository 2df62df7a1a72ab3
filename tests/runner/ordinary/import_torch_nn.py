# import torch.nn (binds torch)
import torch.nn
import torch.nn.functional
layer = torch.nn.Linear(3, 1)
with torch.no_grad():
    layer.weight.fill_(1.0)
    layer.bias.fill_(0.5)
out = layer(torch.ones(2, 3))
print(out, torch.nn.functional.relu(torch.tensor([-1.0, 2.0])))
