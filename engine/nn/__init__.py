"""`torch.nn`: `functional` (activations and losses) and the modules of a training loop."""
from engine.nn import functional, init, utils
from engine.nn.activation import ELU, GELU, Dropout, LeakyReLU, ReLU, Sigmoid, SiLU, Softplus, Tanh
from engine.nn.loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, MSELoss
from engine.nn.modules import Embedding, Flatten, Linear, Module, ModuleList, Parameter, Sequential

__all__ = ["functional", "init", "utils", "Parameter", "Module", "ModuleList", "Linear", "Sequential", "ReLU", "Tanh", "Sigmoid", "Flatten",
           "Embedding", "MSELoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss", "LeakyReLU", "ELU", "SiLU", "GELU",
           "Softplus", "Dropout"]
