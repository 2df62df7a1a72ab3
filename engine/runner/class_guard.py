"""The class guard: `class` statements (Python's `__build_class__`), decorators, `@staticmethod` and `super()`.
A snippet's class derives from torch's Function or Module or from its own classes, and holds its own methods and
plain values; torch's own members stay torch's (see docs/runner.md, "Classes").
"""
from __future__ import annotations

import builtins
from collections.abc import Callable

from .call_guard import _describe
from .errors import SnippetRejected, reason
from .surface import (
    CLASS_BASES,
    OVERRIDABLE,
    engine_member,
    is_snippet_class,
    register_snippet_class,
    type_text,
)

# what Python calls on a class attribute by itself (binding, assignment, class creation): only the snippet's own
# functions may be such values
_CLASS_HOOKS = ("__get__", "__set__", "__delete__", "__set_name__")


class ClassGuard:
    """The classes of one execution (a part of `guards.Guards`)."""

    def decorator(self, decorator: object) -> Callable[[object], object]:
        """`@d` applies `d` through the call guard, like any call the snippet writes. What it makes is remembered:
        a class statement keeps, besides the snippet's own functions, only what a decorator made of them
        (`@torch.no_grad()` on a method binds like one, as in PyTorch)."""
        def apply(fn: object) -> object:
            made = self.call(decorator, fn)
            self._decorated[id(made)] = made
            return made
        return apply

    def build_class(self, body: object, name: str, *bases: object, **keywords: object) -> type:
        """What a `class` statement calls (Python's `__build_class__`): the base must be torch's Function or
        Module or a class the snippet built here; the namespace may hold only the snippet's own methods, which do
        not replace torch's own ones except the documented extension points, and literal constants."""
        self.budget.tick()
        if keywords or len(bases) > 1 or not self._is_own(body):
            raise SnippetRejected(reason("class_statement_unsupported"))
        base = bases[0] if bases else object  # `class Config:` holds settings; object's hooks are all no-ops
        if not (base is object or any(base is allowed for allowed in CLASS_BASES) or is_snippet_class(base)):
            raise SnippetRejected(reason("class_base_refused", base=type_text(base) or _describe(base)))
        cls = builtins.__build_class__(body, name, base)
        for member, value in vars(cls).items():
            if member in ("__module__", "__qualname__", "__doc__", "__annotations__", "__dict__", "__weakref__"):
                # made by Python from the statement (a plain class also gets its instances' __dict__ and __weakref__)
                continue
            function = value.__func__ if type(value) is staticmethod else value
            if self._is_own(function):
                self._check_function_builtins(function)
            elif self._decorated.get(id(value)) is value and not member.startswith("_"):
                pass  # `@torch.no_grad()`, `@classmethod`, `@property` on a method: made through the call guard
            elif member.startswith("_") or any(hasattr(type(value), hook) for hook in _CLASS_HOOKS):
                raise SnippetRejected(reason("class_descriptor_refused", member=f"{name}.{member}"))
            if member not in OVERRIDABLE and engine_member(base, member):
                raise SnippetRejected(reason("class_override_refused", member=f"{name}.{member}", own=member,
                                             base=CLASS_BASES.get(base, base.__name__),
                                             allowed=", ".join(sorted(OVERRIDABLE))))
        register_snippet_class(cls)
        return cls

    def static(self, function: object) -> staticmethod:
        """`@staticmethod` on a method (Function's forward and backward): for the snippet's own functions only."""
        if not self._is_own(function):
            raise SnippetRejected(reason("staticmethod_own_only"))
        return staticmethod(function)

    def super_(self, cls: object, instance: object, name: str) -> object:
        """`super().name` in a method, with the method's class and first parameter (see `rewrite`)."""
        if not is_snippet_class(cls):
            raise SnippetRejected(reason("super_own_only"))
        if not isinstance(instance, cls):
            raise TypeError("super(type, obj): obj must be an instance or subtype of type")
        return self._fetched(getattr(super(cls, instance), name))
