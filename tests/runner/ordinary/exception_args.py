# e.args on a caught exception
import torch
x = torch.ones(3, requires_grad=True)
y = x * 2
try:
    y.backward()
except RuntimeError as e:
    print(e.args)
    print(e.args[0])
try:
    raise ValueError("bad value", 42)
except ValueError as err:
    message, code = err.args
    print(message, code, len(err.args))
try:
    {}["missing"]
except KeyError as e:
    print(repr(e.args[0]))
