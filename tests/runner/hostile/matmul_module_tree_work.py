# expect: ResourceLimitExceeded line 4
import torch
model = torch.nn.Sequential(torch.nn.Sequential(torch.nn.Linear(1500, 1500)))
y = model(torch.ones(1500, 1500))
