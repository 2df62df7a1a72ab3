# import torch.nn as nn
import torch
import torch.nn as nn
import torch.nn.functional as F
model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
print(model)
print(F.mse_loss(torch.tensor([1.0, 2.0]), torch.tensor([0.0, 0.0])))
