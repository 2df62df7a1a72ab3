"""The torch surface, derived from the op records: `Tensor` methods, `torch.*` functions, in-place variants.

Every name comes from a record's `Names` (`engine.ops`): an op's own, or a composite's. The method groups of
`engine.methods` are attached first; a method they spell out is that op's argument parser (`x.sum(dim, keepdim)` picks `sum` or `sum_dim`); any
other method of a record is made here (`x.exp()` runs the `exp` record), as is every in-place variant
(`x.exp_()`: the op, then written into x) and every `torch.f` (`torch.exp(x)` is `x.exp()`). Nothing else
lists names: `FUNCTIONS` is what `import engine as torch` exposes beside its factories and modes.
"""
from __future__ import annotations

import numbers

from engine.methods import GROUPS
from engine.methods import shape as _shape
from engine.ops import COMPOSITES, FLOATING, OPS, Names
from engine.tensor import _NO_ATTRS, Tensor, _run


def declared() -> list[tuple[Names, object]]:
    """Every `Names` with its op record (None for a composite), ops first."""
    return [(op.names, op) for op in OPS.values() if op.names is not None] + [(n, None) for n in COMPOSITES]


def _method(op):
    """`x.exp()`: the op on x (an integer tensor computed as float32, as PyTorch's float-valued ops do)."""
    if op.result_dtype is FLOATING:
        def method(self):
            # (a float tensor as it is, without the call: this runs for every exp, sin, tanh…)
            return _run(op, (self if self._data.dtype.kind == "f" else self._floating(),), _NO_ATTRS)
    else:
        def method(self):
            return _run(op, (self,), _NO_ATTRS)
    return method


def _inplace(name: str):
    """`x.exp_()`: the out-of-place op, its result written into x (`Tensor._inplace`: versions, views, graph)."""
    def method(self, *args, **kwargs):
        self._check_inplace()
        return self._inplace(getattr(self, name)(*args, **kwargs))

    method.__doc__ = f"`x.{name}_(...)`: `x.{name}(...)` written into x."
    return method


def _function(name: str, number_first: str, op):
    """`torch.f(input, ...)`: the method `f` of input, with PyTorch's errors for anything but a tensor."""
    method = getattr(Tensor, name)

    def function(input, *args, **kwargs):  # noqa: A002 - PyTorch's argument name
        if type(input) is Tensor:  # the common case, without looking the method up again
            return method(input, *args, **kwargs) if args or kwargs else method(input)
        if isinstance(input, Tensor):
            return getattr(input, name)(*args, **kwargs)
        if number_first and args and isinstance(args[0], Tensor) and isinstance(input, numbers.Number):
            if number_first == "op":  # the number is a wrapped tensor operand of the op itself
                return _run(op, (input, args[0]), _NO_ATTRS)
            return getattr(args[0], number_first)(input, *args[1:], **kwargs)
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"`torch.{name}(input, ...)`, the same as `input.{name}(...)`."
    return function


# what a class body holds beside its members (`__hash__`: a group defining `__eq__` gets None, Tensor keeps its own)
_CLASS_ENTRIES = frozenset({"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__hash__"})


def _attach_groups() -> None:
    """Give `Tensor` the members of each method group (`engine.methods`), as if its class body held them."""
    for group in GROUPS:
        for name, member in vars(group).items():
            if name in _CLASS_ENTRIES:
                continue
            assert name not in vars(Tensor), f"Tensor.{name} is defined twice"
            if callable(member) and member.__qualname__.startswith(group.__name__ + "."):  # (an alias: once)
                member.__qualname__ = "Tensor." + member.__qualname__.split(".", 1)[1]
            setattr(Tensor, name, member)


def _attach() -> dict:
    """Give `Tensor` the methods the records name and it lacks; return the torch functions by name."""
    _attach_groups()
    found = {}
    for names, op in declared():
        for name in names.methods:
            if name not in vars(Tensor):
                assert op is not None, f"composite {name} needs its method in Tensor"
                method = _method(op)
                method.__name__ = method.__qualname__ = name
                method.__doc__ = f"`x.{name}()`: the `{name}` op (`engine.ops`)."
                setattr(Tensor, name, method)
        for name in names.inplace:
            if name not in vars(Tensor):
                method = _inplace(name[:-1])
                method.__name__ = method.__qualname__ = name
                setattr(Tensor, name, method)
        for name in names.functions + names.inplace_functions:
            if name in vars(Tensor):
                found[name] = _function(name, names.number_first if name in names.methods else "", op)
            else:  # a function only (torch.cat, torch.where): `engine.methods.shape`'s own
                found[name] = vars(_shape)[name]
    return found


FUNCTIONS: dict = _attach()
