# Class attributes changed through the class: a counter, a registry filled by a classmethod
import torch


class Counter:
    count = 0
    registry = {}

    @classmethod
    def bump(cls):
        cls.count += 1
        return cls.count

    @classmethod
    def register(cls, name, fn):
        cls.registry[name] = fn
        return fn

    @staticmethod
    def double(v):
        return v * 2


Counter.bump()
Counter.bump()
Counter.register("square", lambda t: t ** 2)
Counter.label = "steps"
print(Counter.count, Counter.double(3), Counter().count, Counter.label)
print(Counter.registry["square"](torch.tensor([1.0, 3.0])))
