"""`torch.nn`: `functional` (activations and losses) and the modules of a training loop."""
from engine.nn import functional, init, utils
from engine.nn.modules import (
                               BCELoss,
                               BCEWithLogitsLoss,
                               CrossEntropyLoss,
                               Embedding,
                               Flatten,
                               Linear,
                               Module,
                               ModuleList,
                               MSELoss,
                               Parameter,
                               ReLU,
                               Sequential,
                               Sigmoid,
                               Tanh,
)

__all__ = ["functional", "init", "utils", "Parameter", "Module", "ModuleList", "Linear", "Sequential", "ReLU", "Tanh", "Sigmoid", "Flatten",
           "Embedding", "MSELoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss"]
