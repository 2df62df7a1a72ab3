# "Build the neural network" (Learn the Basics), with fixed weights
import torch
from torch import nn


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(4 * 4, 8),
            nn.ReLU(),
            nn.Linear(8, 8),
            nn.ReLU(),
            nn.Linear(8, 3),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


model = NeuralNetwork()
print(model)
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1) / 10)
X = torch.linspace(0, 1, 32).reshape(2, 4, 4)
logits = model(X)
pred_probab = nn.Softmax(dim=1)(logits) if hasattr(nn, "Softmax") else torch.softmax(logits, dim=1)
y_pred = pred_probab.argmax(1)
print(f"Predicted class: {y_pred}")
print(f"Model structure: {model}\n\n")
for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:2].sum().item():.4f} \n")
total = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(total)
