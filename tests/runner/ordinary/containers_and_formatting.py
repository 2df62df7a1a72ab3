# Everyday Python around a model: zip, enumerate, comprehensions, str.format, sorted with a key
import torch
from torch import nn

layers = [nn.Linear(2, 3), nn.Linear(3, 1)]
model = nn.Sequential(*layers)
shapes = {name: tuple(p.shape) for name, p in model.named_parameters()}
for i, (name, shape) in enumerate(sorted(shapes.items(), key=lambda kv: kv[0]), start=1):
    print("{:>2}. {:<10} {}".format(i, name, shape))
pairs = list(zip(*[(1, "a"), (2, "b")]))
print(pairs, len(model), model[0], [type(m).__name__ for m in model])
counts = [p.numel() for p in model.parameters()]
print(counts, sum(counts), max(counts), f"{sum(counts):,}")
