# A plain class holding the settings
import torch


class Config:
    """Hyperparameters."""
    lr = 0.1
    epochs = 3
    hidden_sizes = [4, 2]
    name: str = "tiny"


class Trainer:
    def __init__(self, config, w):
        self.config = config
        self.w = w
        self.losses = []

    def step(self):
        loss = (self.w ** 2).sum()
        loss.backward()
        with torch.no_grad():
            self.w -= self.config.lr * self.w.grad
        self.w.grad.zero_()
        self.losses.append(round(loss.item(), 4))
        return loss


cfg = Config()
cfg.lr = 0.25
trainer = Trainer(cfg, torch.tensor([2.0, -1.0], requires_grad=True))
for epoch in range(Config.epochs):
    trainer.step()
print(Config.lr, cfg.lr, cfg.hidden_sizes, cfg.name, trainer.losses, trainer.w)
print(isinstance(cfg, Config), type(cfg).__name__, Config.__name__)
