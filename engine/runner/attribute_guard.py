"""The attribute guard: reading (`x.grad`), assigning (`self.w = ...`) and probing (`hasattr`) attributes, each
answered by what the surface lets a snippet reach (`surface.attribute_refusal`), never by running a refused one.
"""
from __future__ import annotations

import inspect
import math
import types

from engine.autograd.function import FunctionCtx

from .call_guard import _BUILTIN_METHOD_TYPES
from .errors import SnippetRejected, reason
from .surface import (
    attribute_refusal,
    dtype_refusal,
    engine_member,
    is_engine_module_name,
    is_engine_type,
    is_snippet_class,
    is_snippet_object,
    is_tensor,
    own_private,
    value_refusal,
)

_CTX_OWN = frozenset(name for name in dir(FunctionCtx()) if not name.startswith("_"))  # `ctx.constant = c` is fine


class AttributeGuard:
    """The attributes of one execution (a part of `guards.Guards`)."""

    def attr(self, obj: object, name: str) -> object:
        if name == "__name__":
            return _name_of(obj)
        reason = attribute_refusal(obj, name)
        if reason is not None:
            if not name.startswith("_") and not _has_static(obj, name):
                _lookup(obj, name)  # an attribute the object lacks: Python's own AttributeError
            raise SnippetRejected(reason)
        value = getattr(obj, name)
        if isinstance(obj, Exception) and type(value) is tuple:  # `e.args`: what was raised, vetted one by one
            for element in value:
                self._fetched(element)
        return self._fetched(value)

    def _fetched(self, value: object) -> object:
        """A value read through an attribute: the snippet's own functions, or what the surface lets out."""
        if self._is_own(value) or isinstance(value, types.GeneratorType) and value.gi_code in self.codes:
            return value  # the snippet's own functions and generators (`self.batches = batches(x, 4)`)
        reason = value_refusal(value) or dtype_refusal(value)
        if reason is not None:
            raise SnippetRejected(reason)
        return value

    def settarget(self, obj: object, name: str) -> object:
        # a plain class of the snippet's (`Counter.count += 1`, `cls.count` in a classmethod) holds nothing of
        # torch's; a Function's or Module's class attributes are read by the engine, and stay as the class made them
        plain_class = is_snippet_class(obj) and not any(is_engine_type(k) for k in obj.__mro__)
        if not (is_tensor(obj) or is_snippet_object(obj) or type(obj) is FunctionCtx or plain_class):
            raise SnippetRejected(reason("assign_attribute_refused", name=name))
        if plain_class and name.startswith("_"):
            raise SnippetRejected(reason("private_internal", name=name))
        if name.startswith("_") and not own_private(obj, name):
            raise SnippetRejected(reason("private_internal", name=name))
        # torch's own attributes stay torch's: the engine calls and reads them (`model.train()` calls `modules()`)
        if is_snippet_object(obj) and engine_member(type(obj), name) or type(obj) is FunctionCtx and name in _CTX_OWN:
            raise SnippetRejected(reason("assign_torch_attribute", name=name, kind=type(obj).__name__))
        return obj

    def _hasattr(self, obj: object, name: object) -> bool:
        """Python's answer, except for attributes the snippet may not touch: those are refused as `obj.name` is."""
        if not isinstance(name, str):
            return hasattr(obj, name)  # Python's own TypeError
        if name == "__name__":  # as `obj.__name__` answers
            try:
                _name_of(obj)
            except AttributeError:
                return False
            return True
        reason = attribute_refusal(obj, name)
        if reason is None:
            return hasattr(obj, name)
        if name.startswith("_") or _has_static(obj, name):
            raise SnippetRejected(reason)
        return False


def _name_of(obj: object) -> str:
    """`obj.__name__` for a class or a function (`type(y.grad_fn).__name__`, `fn.__name__`), Python's
    AttributeError for anything else: the one dunder attribute a snippet may read, a plain str."""
    if isinstance(obj, types.ModuleType) and (obj is math or is_engine_module_name(obj.__name__)):
        return obj.__name__.replace("engine", "torch", 1)  # `torch.nn.__name__` is 'torch.nn', as in PyTorch
    if isinstance(obj, (type, types.FunctionType, types.MethodType, *_BUILTIN_METHOD_TYPES)):
        name = getattr(obj, "__name__", None)
        if type(name) is str:
            return name
    raise AttributeError(f"'{type(obj).__name__}' object has no attribute '__name__'")


def _has_static(obj: object, name: str) -> bool:
    """Whether obj has the attribute, found without running any property or `__getattr__` (the probe for a
    refused attribute must not run it: numpy's `.ctypes` imports modules)."""
    try:
        inspect.getattr_static(obj, name)
    except AttributeError:
        return False
    return True


def _lookup(obj: object, name: str) -> object:
    """getattr, with PyTorch's wording for an engine module (`module 'torch' has no attribute 'x'`)."""
    try:
        return getattr(obj, name)
    except AttributeError:
        if isinstance(obj, types.ModuleType) and is_engine_module_name(obj.__name__):
            raise AttributeError(f"module 'torch{obj.__name__[len('engine'):]}' has no attribute '{name}'") from None
        raise
