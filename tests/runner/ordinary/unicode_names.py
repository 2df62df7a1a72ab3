# Non-ASCII names (Python normalises identifiers with unicodedata)
import torch
α = 0.1
学習率 = 0.5
重み = torch.tensor([1.0, -2.0], requires_grad=True)
損失 = (重み ** 2).sum()
損失.backward()
with torch.no_grad():
    重み -= 学習率 * α * 重み.grad
print(α, 学習率, 重み)
