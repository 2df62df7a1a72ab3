"""`torch.nn`: `functional` (activations and losses) and the modules of a training loop."""
from engine.nn import functional, init, utils
from engine.nn.modules import (
                               ELU,
                               GELU,
                               BCELoss,
                               BCEWithLogitsLoss,
                               CrossEntropyLoss,
                               Dropout,
                               Embedding,
                               Flatten,
                               LeakyReLU,
                               Linear,
                               Module,
                               ModuleList,
                               MSELoss,
                               Parameter,
                               ReLU,
                               Sequential,
                               Sigmoid,
                               SiLU,
                               Softplus,
                               Tanh,
)

__all__ = ["functional", "init", "utils", "Parameter", "Module", "ModuleList", "Linear", "Sequential", "ReLU", "Tanh", "Sigmoid", "Flatten",
           "Embedding", "MSELoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss", "LeakyReLU", "ELU", "SiLU", "GELU",
           "Softplus", "Dropout"]
