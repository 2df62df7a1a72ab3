"""The runtime half of the allow-list: the `__sg_*` functions the rewritten snippet calls.

Each guard checks the *value* it is handed (the static check only saw names), enforces the size
limits before the operation allocates, runs it, and checks the result.  Values a snippet can reach
therefore come only from the engine's public API, the safe builtins and its own code.
"""
from __future__ import annotations

import builtins
import inspect
import itertools
import math
import operator
import string
import sys
import types
import weakref
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from engine.autograd.function import FunctionCtx
from engine.dtypes import dtype as EngineDtype
from engine.graph import AccumulateGrad, Node
from engine.printing import set_printoptions
from engine.tensor import Tensor

from . import sizes
from .errors import ResourceLimitExceeded, SnippetRejected, stop_within
from .limits import Budget, Limits, broadcast_elements, itemsize_of, shape_of
from .policy import import_engine_module
from .rewrite import guard_name
from .surface import (
    BUILTIN_METHODS,
    CLASS_BASES,
    MATH_NAMES,
    NDARRAY_ATTRS,
    NDARRAY_KEYWORDS,
    NDARRAY_POSITIONAL,
    NODE_MODULE,
    NUMERIC_KINDS,
    OVERRIDABLE,
    SAFE_BUILTINS,
    attribute_refusal,
    dtype_refusal,
    engine_member,
    is_engine_module_name,
    is_engine_object,
    is_engine_type,
    is_snippet_class,
    is_snippet_object,
    is_tensor,
    own_private,
    public_engine_types,
    register_snippet_class,
    requested_dtype_refusal,
    type_text,
    value_refusal,
)

_BINOPS: dict[str, Callable[[object, object], object]] = {
    "Add": operator.add, "Sub": operator.sub, "Mult": operator.mul, "MatMult": operator.matmul,
    "Div": operator.truediv, "FloorDiv": operator.floordiv, "Mod": operator.mod, "Pow": operator.pow,
    "LShift": operator.lshift, "RShift": operator.rshift, "BitOr": operator.or_,
    "BitXor": operator.xor, "BitAnd": operator.and_,
}
_IOPS: dict[str, Callable[[object, object], object]] = {
    "Add": operator.iadd, "Sub": operator.isub, "Mult": operator.imul, "MatMult": operator.imatmul,
    "Div": operator.itruediv, "FloorDiv": operator.ifloordiv, "Mod": operator.imod, "Pow": operator.ipow,
    "LShift": operator.ilshift, "RShift": operator.irshift, "BitOr": operator.ior,
    "BitXor": operator.ixor, "BitAnd": operator.iand,
}
_COMPARE: dict[str, Callable[[object, object], object]] = {
    "Eq": operator.eq, "NotEq": operator.ne, "Lt": operator.lt, "LtE": operator.le, "Gt": operator.gt,
    "GtE": operator.ge, "Is": operator.is_, "IsNot": operator.is_not,
    "In": lambda a, b: a in b, "NotIn": lambda a, b: a not in b,
}
# builtins that drain an iterable in C, where no snippet code (and so no tick) runs per element
_CONSUMERS = frozenset({list, tuple, set, sorted, sum, min, max, any, all, dict})
_MATERIALISED = (list, tuple, str, bytes, dict, set, frozenset, range)
_NESTED = (list, tuple, dict, set, frozenset, type({}.keys()), type({}.values()), type({}.items()))
_BUILTIN_METHOD_TYPES = (types.BuiltinMethodType, types.MethodWrapperType)
# builtins that are the runner's own guards: `print`, and `__build_class__`, which a `class` statement calls
_OWN_BUILTINS = {"print": "print", "__build_class__": "build_class"}
_BUILTIN_NAMES = frozenset(SAFE_BUILTINS) | set(_OWN_BUILTINS)
# what Python calls on a class attribute by itself (binding, assignment, class creation): only the snippet's own
# functions may be such values
_CLASS_HOOKS = ("__get__", "__set__", "__delete__", "__set_name__")
_CTX_OWN = frozenset(name for name in dir(FunctionCtx()) if not name.startswith("_"))  # `ctx.constant = c` is fine


class Guards:
    """The guard functions of one execution, bound to its `Budget` and its captured output."""

    def __init__(self, limits: Limits, snippet_codes: set[types.CodeType], output: list[str]) -> None:
        self.budget = Budget(limits)
        self.codes = snippet_codes
        self.output = output
        self.live: dict[int, int] = {}  # id -> bytes of each live tensor the snippet produced
        self.live_bytes = 0
        self.builtins: dict[str, object] = {name: getattr(builtins, name) for name in SAFE_BUILTINS}
        self.builtins["print"] = self.print
        self._builtin_ids = {id(value) for value in self.builtins.values()}
        self.builtins["__build_class__"] = self.build_class  # not a callable builtin: only `class` reaches it
        self._trusted_builtins: dict[int, dict] = {}  # earlier runs' builtins, checked once per run
        self._decorated: dict[int, object] = {}  # what the snippet's decorators made (see `decorator`)

    def size_guard(self, shape: tuple[int, ...], work: int = 0, itemsize: int | None = None) -> None:
        """Vet a shape the engine is about to allocate, and check the clock: the engine calls this at every
        tensor it makes, sweep node and module call (see `execute._size_hook`), so work the snippet started in
        one call (a Jacobian, a gradcheck, a module tree called in full) stops at the deadline like a loop. Every
        matrix product reports its multiply-adds here, however it was reached (`@`, `F.linear`, `addmm`, a
        Linear module inside a Sequential). `itemsize`: the bytes per element, when known before the result
        exists (a factory's)."""
        self.budget.elements(math.prod(shape), itemsize=itemsize)
        if work:
            self.budget.product_work(work, "the matrix product")
        self.budget.clock()

    def names(self) -> dict[str, object]:
        """The `__sg_*` entries for the snippet's globals."""
        return {
            guard_name(name): getattr(self, name)
            for name in ("tick", "attr", "settarget", "item", "store", "slice", "call", "binop", "iop",
                         "cmp", "chain", "fmt", "ctx", "import_", "decorator", "unpack", "call_unpacked", "caught",
                         "raise_", "key", "super_", "static", "ticking")
        }

    # --- steps -----------------------------------------------------------------------------------

    def tick(self) -> bool:
        self.budget.tick()
        return True

    def _ticked(self, iterable: Iterable[object]) -> Iterator[object]:
        for item in iterable:
            self.budget.tick()
            yield item

    def ticking(self, iterable: object) -> Iterator[object]:
        """`yield from xs`: each element handed on ticks, as a loop of the snippet's would."""
        return self._ticked(iterable)

    def _bounded(self, value: object) -> object:
        """A materialised container as is; anything lazy drained with a tick per element."""
        if isinstance(value, _MATERIALISED):
            return value
        if isinstance(value, types.GeneratorType) and value.gi_code in self.codes:
            return list(value)  # the snippet's own generator expression ticks by itself
        return list(self._ticked(value))  # raises TypeError for non-iterables, like the builtin

    # --- attributes, items, imports --------------------------------------------------------------

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
            raise SnippetRejected(f"only attributes of tensors, of a Function's ctx, of instances of the snippet's "
                                  f"classes and of its plain classes can be assigned in snippets (`x.{name} = ...`)")
        if plain_class and name.startswith("_"):
            raise SnippetRejected(f"'{name}': names starting with '_' are internals and not available in snippets")
        if name.startswith("_") and not own_private(obj, name):
            raise SnippetRejected(f"'{name}': names starting with '_' are internals and not available in snippets")
        # torch's own attributes stay torch's: the engine calls and reads them (`model.train()` calls `modules()`)
        if is_snippet_object(obj) and engine_member(type(obj), name) or type(obj) is FunctionCtx and name in _CTX_OWN:
            raise SnippetRejected(f"'{name}' is torch's own attribute of {type(obj).__name__}; assigning it is "
                                  "refused for safety (choose another name)")
        return obj

    def item(self, obj: object, index: object) -> object:
        if isinstance(index, tuple) and isinstance(obj, (dict, set, frozenset)):
            self.key(index)
        shape = shape_of(obj)
        if shape is not None:
            self.budget.elements(sizes.indexed_elements(shape, index), "the result of indexing", itemsize_of(obj))
        return self._after(obj[index])

    def store(self, obj: object) -> object:
        if isinstance(obj, np.ndarray):
            return _ArrayStore(obj)
        return _ListStore(obj, self) if type(obj) is list else obj

    def key(self, value: object) -> object:
        """A set element or dict key about to be hashed (hashing a tuple visits all of it, in C)."""
        if isinstance(value, tuple):
            self.budget.nested_work(value, "hashing this tuple")
        return value

    def slice(self, lower: object, upper: object, step: object) -> slice:
        return slice(lower, upper, step)

    def ctx(self, manager: object) -> object:
        if not is_engine_object(manager):
            if not all(hasattr(type(manager), method) for method in ("__enter__", "__exit__")):
                return manager  # `with torch.no_grad:` gets Python's own TypeError
            raise SnippetRejected("only torch's context managers (such as `with torch.no_grad():`) are supported")
        return manager

    def import_(self, dotted: str) -> types.ModuleType:
        if dotted == "math":
            return math
        module = import_engine_module(dotted)
        if module is None:
            raise SnippetRejected(f"`{dotted}` is not available in snippets")
        return module

    # --- operators -------------------------------------------------------------------------------

    def binop(self, op: str, left: object, right: object) -> object:
        self.budget.before_binop(op, left, right)
        if op == "Mod" and isinstance(left, str):
            fields = left.count("%") if isinstance(right, dict) else 1  # %(name)s may repeat one value
            self.budget.text(right, "this %-format", fields=max(fields, 1))
        return self._after(_BINOPS[op](left, right))

    def iop(self, op: str, left: object, right: object) -> object:
        self.budget.before_binop(op, left, right)
        return self._after(_IOPS[op](left, right))

    def cmp(self, op: str, left: object, right: object) -> object:
        if op not in ("Is", "IsNot"):
            for shapes in sizes.compared_shapes(op, left, right):
                self._check_broadcast(shapes, "the result of a comparison")
            if isinstance(right, _NESTED) and (isinstance(left, _NESTED) or op in ("In", "NotIn")):
                hashed = op in ("In", "NotIn") and isinstance(right, (set, frozenset, dict))
                self.budget.nested_work(left if hashed else (left, right), "this comparison")
        return self._after(_COMPARE[op](left, right))

    def chain(self, ops: tuple[str, ...], left: object, *rights: Callable[[], object]) -> object:
        result: object = True
        for op, thunk in zip(ops, rights):
            right = thunk()
            result = self.cmp(op, left, right)
            if not result:
                return result
            left = right
        return result

    def fmt(self, value: object, conversion: int, spec: str) -> str:
        if type_text(value) is not None:  # str, repr and ascii of a class are the same text
            value, conversion = type_text(value), -1
        self.budget.text(value, "this f-string field")
        if conversion != -1:
            value = {ord("s"): str, ord("r"): repr, ord("a"): ascii}[conversion](value)
        self.budget.format_spec_text(spec)
        return self._after(format(value, spec))

    # --- decorators, unpacking, exceptions -------------------------------------------------------

    def decorator(self, decorator: object) -> Callable[[object], object]:
        """`@d` applies `d` through the call guard, like any call the snippet writes. What it makes is remembered:
        a class statement keeps, besides the snippet's own functions, only what a decorator made of them
        (`@torch.no_grad()` on a method binds like one, as in PyTorch)."""
        def apply(fn: object) -> object:
            made = self.call(decorator, fn)
            self._decorated[id(made)] = made
            return made
        return apply

    def unpack(self, kind: str, *parts: object, _callee: object = None) -> object:
        """`[a, *xs]`, `(*xs, *ys)`, `{*xs}`: each part bounded (ticked when lazy) and the total sized before
        the list, tuple or set is built (`[*r, *r, *r]` must not multiply a big range unchecked)."""
        for part in parts:
            if kind != "set" and not hasattr(type(part), "__iter__"):
                where = "Value" if _callee is None else f"{_function_str(_callee, self.print)} argument"
                raise TypeError(f"{where} after * must be an iterable, not {type(part).__name__}")
        bounded = [self._bounded(part) for part in parts]
        self.budget.items(sum(map(len, bounded)), f"the unpacked {kind}")
        return {"list": list, "tuple": tuple, "set": set}[kind](itertools.chain.from_iterable(bounded))

    def call_unpacked(self, fn: object, /, *parts: object, **kwargs: object) -> object:
        """`f(a, *xs, *ys)`: the pieces of the arguments (`(a,)`, xs, ys) bounded, then the call guard."""
        return self.call(fn, *self.unpack("tuple", *parts, _callee=fn), **kwargs)

    def caught(self) -> bool:
        """First statement of every `except` and `finally` body: the runner's stops (limits, refusals) and
        Python's RecursionError/MemoryError pass through, so no handler or finally block runs for them, also when
        they arrive as the `__context__` or `__cause__` of another error."""
        stop = stop_within(sys.exc_info()[1])  # also one that an error raised on its way out carries
        if stop is not None:
            raise stop
        return True

    def raise_(self, exc: object) -> object:
        kind = exc if isinstance(exc, type) else type(exc)
        if issubclass(kind, BaseException) and not issubclass(kind, Exception) or issubclass(
                kind, (RecursionError, MemoryError)):
            raise SnippetRejected(f"raising {kind.__name__} is refused for safety (the runner stops snippets with it)")
        return exc  # anything else: Python's own checks (`raise 1` is a TypeError)

    # --- classes (see docs/runner.md, "Classes") ---------------------------------------------------

    def build_class(self, body: object, name: str, *bases: object, **keywords: object) -> type:
        """What a `class` statement calls (Python's `__build_class__`): the base must be torch's Function or
        Module or a class the snippet built here; the namespace may hold only the snippet's own methods, which do
        not replace torch's own ones except the documented extension points, and literal constants."""
        self.budget.tick()
        if keywords or len(bases) > 1 or not self._is_own(body):
            raise SnippetRejected("this class statement is outside what snippets support")
        base = bases[0] if bases else object  # `class Config:` holds settings; object's hooks are all no-ops
        if not (base is object or any(base is allowed for allowed in CLASS_BASES) or is_snippet_class(base)):
            raise SnippetRejected(f"a class in a snippet derives from torch.autograd.Function, torch.nn.Module or a "
                                  f"class the snippet defined earlier (or nothing), not from "
                                  f"{type_text(base) or _describe(base)}")
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
                raise SnippetRejected(f"'{name}.{member}' is a value that Python would call from the class (a "
                                      "descriptor); a class attribute in a snippet is a method or a plain value")
            if member not in OVERRIDABLE and engine_member(base, member):
                raise SnippetRejected(f"'{name}.{member}' would replace torch's own '{member}' of "
                                      f"{CLASS_BASES.get(base, base.__name__)}; a class in a snippet may define "
                                      f"{', '.join(sorted(OVERRIDABLE))} and methods of its own")
        register_snippet_class(cls)
        return cls

    def static(self, function: object) -> staticmethod:
        """`@staticmethod` on a method (Function's forward and backward): for the snippet's own functions only."""
        if not self._is_own(function):
            raise SnippetRejected("@staticmethod applies to the snippet's own methods only")
        return staticmethod(function)

    def super_(self, cls: object, instance: object, name: str) -> object:
        """`super().name` in a method, with the method's class and first parameter (see `rewrite`)."""
        if not is_snippet_class(cls):
            raise SnippetRejected("super() is supported in the methods of the snippet's classes only")
        if not isinstance(instance, cls):
            raise TypeError("super(type, obj): obj must be an instance or subtype of type")
        return self._fetched(getattr(super(cls, instance), name))

    # --- calls -----------------------------------------------------------------------------------

    def call(self, fn: object, /, *args: object, **kwargs: object) -> object:
        # every call counts as a level: calls only nest when something calls back into the snippet
        # (its own recursion, jacobian(f, x), sorted(key=f)), and that is what the depth bounds
        self.budget.enter()
        try:
            return self._dispatch(fn, args, kwargs)
        finally:
            self.budget.leave()

    def _dispatch(self, fn: object, args: tuple, kwargs: dict) -> object:
        function = self._snippet_function(fn)
        if function is not None:  # its body ticks (rewrite), however it is called
            self._check_function_builtins(function)
            return fn(*args, **kwargs)
        self.budget.tick()
        if type(fn) is _Guarded:
            return fn(*args, **kwargs)
        if fn is self.print:
            return self.print(*args, **kwargs)
        if id(fn) in self._builtin_ids:
            return self._after(self._call_builtin(fn, args, kwargs))
        if isinstance(fn, type) and fn.__module__ == NODE_MODULE:  # `type(y.grad_fn)(...)`: PyTorch's own refusal
            raise TypeError(f"cannot create '{fn.__name__}' instances")
        if _is_engine_callable(fn):
            if fn is EngineDtype:  # torch.dtype('x', 'U1000000') would make huge elements
                raise SnippetRejected("new dtypes cannot be made in snippets; use torch.float32, torch.float64, ...")
            if fn is set_printoptions:
                _check_printoptions(args, kwargs)
            if getattr(fn, "__name__", "") in sizes.CONCAT and args and isinstance(args[0], (list, tuple)):
                # the backward of a join passes every input to every input's rule: n² work in one call
                self.budget.nested_work(None, f"joining {len(args[0])} tensors", factor=len(args[0]) ** 2)
            args, kwargs = self._callable_arguments(fn, args, kwargs)
            # a builtin handed to the engine (`jacobian(str.format, x)`) is called through the call guard too
            args = tuple(self._through_guard(a) if _is_builtin_callable(a) else a for a in args)
            kwargs = {k: self._through_guard(v) if _is_builtin_callable(v) else v for k, v in kwargs.items()}
            return self._after(fn(*args, **kwargs))
        if isinstance(fn, _BUILTIN_METHOD_TYPES) and fn.__self__ is math and fn.__name__ in MATH_NAMES:
            return self._after(self._call_math(fn, args, kwargs))
        if isinstance(fn, _BUILTIN_METHOD_TYPES) and not isinstance(fn.__self__, types.ModuleType):
            return self._after(self._call_method(fn, args, kwargs))
        if not callable(fn):
            return fn(*args, **kwargs)  # Python's own "'X' object is not callable"
        raise SnippetRejected(f"calling {_describe(fn)} is not allowed in snippets")

    def _snippet_function(self, fn: object) -> types.FunctionType | None:
        """The snippet's own function that `fn` is (`f`), or that it binds to one of the snippet's instances or
        classes (`model.forward`, `self.helper`); None for anything else."""
        if isinstance(fn, types.MethodType) and (is_snippet_object(fn.__self__) or is_snippet_class(fn.__self__)):
            fn = fn.__func__
        return fn if self._is_own(fn) else None

    def _is_own(self, fn: object) -> bool:
        """A function the snippet's own code defined (its code object is one this run compiled)."""
        return isinstance(fn, types.FunctionType) and fn.__code__ in self.codes

    def _check_function_builtins(self, fn: types.FunctionType) -> None:
        """A snippet function resolves bare names through the builtins it was created with: they must be
        a runner's safe builtins (never a module's namespace that a rebinding of `__builtins__` put there)."""
        found = fn.__builtins__
        if found is self.builtins or id(found) in self._trusted_builtins:
            return
        if type(found) is dict and found.keys() == _BUILTIN_NAMES and all(
                _is_own_guard(name, value) if name in _OWN_BUILTINS else value is getattr(builtins, name)
                for name, value in found.items()):
            self._trusted_builtins[id(found)] = found  # held for this run, so the id stays its own
            return
        raise SnippetRejected("this function's builtins are not the runner's; running it is refused for safety")

    def _callable_arguments(self, fn: object, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """Vet the arguments of an engine call or a builtin: no object/str arrays; a function handed over
        (`jacobian(f, x)`, `no_grad()(f)`, `sorted(key=f)`) must be the snippet's own — wrapped so what it
        returns is checked like any result — an engine function, a builtin that does O(1) work per call
        (`len`), or another builtin the snippet may call, wrapped so that every call goes through the call
        guard: a wrapper must not run `sum`, `str` or `sorted` where no guard sees their arguments."""
        def vet(value: object) -> object:
            self.budget.clock()  # `f(*[x] * 10**6)`: a million arguments are vetted one by one
            if type(value) is _Guarded:  # vetted already (`map`'s function, then `map`'s own arguments)
                return value
            _check_dtypes(value)
            if not callable(value) or isinstance(value, type) and (value in _CALLBACK_BUILTINS or is_engine_type(value)):
                return value
            if self._snippet_function(value) is not None:
                return self._callback(value)
            if value in _CALLBACK_BUILTINS or _is_engine_callable(value):
                return value
            if id(value) in self._builtin_ids or _is_builtin_callable(value):
                return _Guarded(value, self)  # str, map, "a".center…: each call checked by the call guard
            raise SnippetRejected(f"passing {_describe(value)} to {_describe(fn)} as a function to call is refused "
                                  "for safety in snippets (pass your own function or a lambda)")
        return tuple(map(vet, args)), {name: vet(value) for name, value in kwargs.items()}

    def _callback(self, function: Callable[..., object]) -> Callable[..., object]:
        def checked(*args: object, **kwargs: object) -> object:
            self._check_function_builtins(self._snippet_function(function))
            return self._after(function(*args, **kwargs))
        checked.__name__ = checked.__qualname__ = function.__name__
        return checked

    def _call_builtin(self, fn: object, args: tuple, kwargs: dict) -> object:
        if fn is type:
            if len(args) != 1 or kwargs:
                raise SnippetRejected("type() with three arguments makes a new class; it is refused for safety")
            return self._type(args[0])
        if fn is hasattr and len(args) == 2 and not kwargs:
            return self._hasattr(*args)
        if fn in (classmethod, property):  # Python calls their functions from C
            args = tuple(self._called_from_c(fn, a) for a in args)
            kwargs = {k: self._called_from_c(fn, v) for k, v in kwargs.items()}
        if fn is iter and len(args) == 2:  # iter(f, sentinel) calls f from C
            args = (self._through_guard(self._callable_arguments(fn, args[:1], {})[0][0]), args[1])
        if fn in (map, filter) and args and not (fn is filter and args[0] is None):
            args = (self._through_guard(self._callable_arguments(fn, args[:1], {})[0][0]), *args[1:])
        if fn in (sorted, min, max) and kwargs.get("key") is not None:
            key = self._callable_arguments(fn, (), {"key": kwargs["key"]})[1]["key"]
            kwargs = {**kwargs, "key": self._through_guard(key)}
        if fn in (str, repr) and len(args) == 1 and not kwargs and type_text(args[0]) is not None:
            return type_text(args[0])
        if fn is range:
            result = range(*args, **kwargs)
            self.budget.items(_length(result), "a range")
            return result
        if fn is round and (len(args) > 1 or "ndigits" in kwargs):
            ndigits = args[1] if len(args) > 1 else kwargs["ndigits"]
            if ndigits is not None:  # round() itself takes any __index__ (a tensor too): judge that value
                ndigits = operator.index(ndigits)
                if abs(ndigits) > self.budget.limits.max_literal:
                    raise ResourceLimitExceeded(f"round() to {ndigits} digits is beyond the limit")
                args = (args[0], ndigits) if len(args) > 1 else args
                kwargs = {**kwargs, "ndigits": ndigits} if "ndigits" in kwargs else kwargs
        if fn in (str, repr) and args:
            self.budget.text(args[0], f"{fn.__name__}() of this value")
        if fn in _CONSUMERS:
            if fn is sum and (len(args) > 1 or "start" in kwargs):
                start = args[1] if len(args) > 1 else kwargs["start"]
                if not isinstance(start, (int, float, complex)) and shape_of(start) is None:
                    raise SnippetRejected("sum() with a start value that is not a number is not supported")
            iterable_args = 1 if (fn not in (min, max) or len(args) == 1) else 0
            args = tuple(self._bounded(a) if i < iterable_args else a for i, a in enumerate(args))
            values = args[0] if iterable_args and args else args
            if fn in (sum, min, max, sorted) and isinstance(values, (list, tuple)):
                self._check_broadcast([s for s in map(shape_of, values) if s is not None], f"the result of {fn.__name__}()")
            if fn in (sorted, min, max, set, dict) and isinstance(values, (list, tuple)):
                rounds = max(1, len(values).bit_length()) if fn is sorted else 1  # comparisons per element
                self.budget.nested_work(values, f"{fn.__name__}() of these values", factor=rounds)
        return fn(*args, **kwargs)

    def _call_method(self, method: types.BuiltinMethodType, args: tuple, kwargs: dict) -> object:
        owner, name = method.__self__, method.__name__
        if isinstance(owner, (np.ndarray, np.generic)):
            if name not in NDARRAY_ATTRS:
                raise SnippetRejected(f"numpy's '.{name}' is not available in snippets")
            _check_ndarray_arguments(name, args, kwargs)
            if name == "astype":
                self._check_astype(owner, args, kwargs)
            return method(*args, **kwargs)
        if name not in BUILTIN_METHODS.get(type(owner), ()):
            raise SnippetRejected(f"calling {_describe(method)} is not allowed in snippets")
        if name in ("join", "extend", "update", "union", "intersection", "difference") and args:
            args = (self._bounded(args[0]), *args[1:])
        if type(owner) is str and name == "format":
            return _SnippetFormatter(self).vformat(owner, args, kwargs)
        if type(owner) is list and name == "sort" and kwargs.get("key") is not None:
            key = self._callable_arguments(method, (), {"key": kwargs["key"]})[1]["key"]
            kwargs = {**kwargs, "key": self._through_guard(key)}
        if type(owner) is str:
            self.budget.items(sizes.str_method_length(owner, name, args), "a str")
        elif name in ("count", "index", "remove", "sort") and type(owner) in (list, tuple):
            rounds = max(1, len(owner).bit_length()) if name == "sort" else 1
            self.budget.nested_work((owner, args), f"{type(owner).__name__}.{name}()", factor=rounds)
        elif type(owner) in (dict, set) and args:
            self.budget.nested_work(args, f"{type(owner).__name__}.{name}()")
        result = method(*args, **kwargs)
        self.budget.result(owner)  # append/extend/update grow the receiver in place
        return result

    def _called_from_c(self, owner: object, fn: object) -> object:
        """A function a classmethod or property will have Python call (from C, binding it to a class or an instance):
        the snippet's own as it is, since it ticks and checks its results itself; anything else vetted as a function
        handed over, and guarded."""
        function = self._snippet_function(fn)
        if function is not None:
            self._check_function_builtins(function)
            return fn
        return fn if fn is None else self._through_guard(self._callable_arguments(owner, (fn,), {})[0][0])

    def _through_guard(self, fn: object) -> object:
        """A callable that Python or the engine will call from C (a `key=`, `map`'s function, a decorated
        builtin), made to go through the call guard; the snippet's own functions are guarded inside."""
        if not _is_builtin_callable(fn):  # the snippet's own (vetted, wrapped) functions and engine functions
            return fn
        return _Guarded(fn, self)

    def _type(self, value: object) -> type:
        kind = type(value)
        if isinstance(value, (Node, AccumulateGrad)):  # `type(y.grad_fn)`: MulBackward0, as PyTorch's
            return kind
        if is_engine_type(kind) and kind not in public_engine_types():
            raise SnippetRejected(f"type() of a {kind.__name__} object is an engine internal and refused for safety")
        return kind  # also a snippet class (`type(model).__name__`): it is reachable by its name anyway

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

    def _check_astype(self, array: object, args: tuple, kwargs: dict) -> None:
        """`.astype(float)`, `.astype("float32")`: numeric and bool dtypes only, sized before converting."""
        if not args and "dtype" not in kwargs:
            return  # numpy's own TypeError
        dtype = np.dtype(args[0] if args else kwargs["dtype"])
        if dtype.kind not in NUMERIC_KINDS:  # the engine has no complex numbers either
            raise SnippetRejected(f"astype to the numpy dtype {str(dtype)!r} is refused for safety "
                                  "(only numeric and bool dtypes)")
        self.budget.elements(int(np.size(array)), "the result of astype", dtype.itemsize)

    def _call_math(self, fn: object, args: tuple, kwargs: dict) -> object:
        """math's functions, with the big-integer ones sized before they run."""
        name = fn.__name__
        ints = [a for a in args if isinstance(a, int) and not isinstance(a, bool) and a >= 0]
        if name == "factorial" and ints:
            self.budget.int_bits(_log2_factorial(ints[0]))
        elif name in ("comb", "perm") and ints:
            n = ints[0]
            k = min(ints[1], n) if len(ints) > 1 and len(args) > 1 else (n if name == "perm" else 0)
            if name == "comb":  # comb(n, k) < 2**n and <= n**min(k, n-k); perm(n, k) <= n**k, and n! if k is n
                self.budget.int_bits(min(n, min(k, n - k) * n.bit_length()))
            else:
                self.budget.int_bits(min(k * n.bit_length(), _log2_factorial(n) if n < 2**53 else 2**63))
        elif name in ("prod", "fsum"):
            args = (self._bounded(args[0]), *args[1:]) if args else args
            if name == "prod" and args:
                values = [*args[0], *args[1:], *kwargs.values()]
                self.budget.int_bits(sum(v.bit_length() for v in values if isinstance(v, int)))
                shapes = [s for s in map(shape_of, values) if s is not None]
                self._check_broadcast(shapes, "the result of math.prod()")
                work = sum(map(math.prod, shapes))  # one uninterruptible C loop of tensor products
                if work > self.budget.limits.max_product_work:
                    raise ResourceLimitExceeded(f"math.prod() of these tensors would take {work} multiplications; "
                                                f"the limit is {self.budget.limits.max_product_work}")
        elif name == "lcm":
            self.budget.int_bits(sum(a.bit_length() for a in args if isinstance(a, int)))
        return fn(*args, **kwargs)

    # --- output ----------------------------------------------------------------------------------

    def print(self, *values: object, sep: str | None = " ", end: str | None = "\n", file: object = None,
              flush: bool = False) -> None:
        if file is not None:
            raise SnippetRejected("print(file=...) is not available in snippets")
        if not isinstance(sep, (str, type(None))) or not isinstance(end, (str, type(None))):
            raise TypeError("sep and end must be None or a string")
        self.budget.text(values, "this print()")
        text = (" " if sep is None else sep).join(str(_shown(v)) for v in values) + ("\n" if end is None else end)
        self.budget.printed(len(text))
        self.output.append(text)

    # --- checks ----------------------------------------------------------------------------------

    def _check_broadcast(self, shapes: list[tuple[int, ...]], what: str) -> None:
        if len(shapes) > 1:
            self.budget.elements(broadcast_elements(shapes) or 0, what)

    def _after(self, value: object) -> object:
        self.budget.result(value)
        _check_dtypes(value)
        if is_tensor(value):
            self._account(value)
        return value

    def _account(self, tensor: object) -> None:
        """Add a tensor to the live total; a weak reference takes it off again when it dies."""
        key = id(tensor)
        if key in self.live:
            return
        try:
            weakref.finalize(tensor, self._release, key)
        except TypeError:
            return  # no weak references on this type: only the per-tensor bound applies
        nbytes = math.prod(tuple(tensor.shape)) * np.dtype(sizes.numpy_dtype(tensor)).itemsize
        self.live[key] = nbytes
        self.live_bytes += nbytes
        limit = self.budget.limits.max_memory
        if self.live_bytes > limit:
            raise ResourceLimitExceeded(
                f"the snippet's tensors take more than {limit // 2**20} MB of memory together"
            )

    def _release(self, key: int) -> None:
        self.live_bytes -= self.live.pop(key, 0)


class _ListStore:
    """Stands in for a list being assigned into, so `a[:0] = a` cannot grow it past the limit."""

    __slots__ = ("_target", "_guards")

    def __init__(self, target: list, guards: Guards) -> None:
        self._target, self._guards = target, guards

    def __setitem__(self, index: object, value: object) -> None:
        if isinstance(index, slice):
            value = self._guards._bounded(value)
            removed = len(range(*index.indices(len(self._target))))
            self._guards.budget.items(len(self._target) - removed + len(value), "a list")
        self._target[index] = value


class _Guarded:
    """A callable handed to code that calls it from C or from the engine (`key=`, `map`, a wrapped builtin):
    every call goes through the call guard.  Shows as the callable it stands for."""

    __slots__ = ("_fn", "_guards")

    def __init__(self, fn: object, guards: Guards) -> None:
        self._fn, self._guards = fn, guards

    def __call__(self, *args: object, **kwargs: object) -> object:
        return self._guards.call(self._fn, *args, **kwargs)

    def __repr__(self) -> str:
        return repr(self._fn)


class _SnippetFormatter(string.Formatter):
    """`"{} {:.3f} {x}".format(...)`: Python's str.format for plain fields; `{0.attr}` and `{0[i]}` walk into
    objects and are refused; every format spec (also a nested `{:{w}}`) is sized before it is applied."""

    def __init__(self, guards: Guards) -> None:
        self.guards = guards
        self.length = 0  # characters formatted so far: `("{:9999}" * 10**5).format(...)` stops early

    def get_field(self, field_name: str, args: object, kwargs: object) -> tuple[object, object]:
        if "." in field_name or "[" in field_name:
            raise SnippetRejected(f"the field {{{field_name}}} in str.format looks up an attribute or an item; "
                                  "such lookups are refused for safety (pass the value itself)")
        key: int | str = int(field_name) if field_name.isdigit() else field_name
        return self.get_value(key, args, kwargs), key

    def get_value(self, key: int | str, args: object, kwargs: object) -> object:
        if isinstance(key, int) and key >= len(args):
            raise IndexError(f"Replacement index {key} out of range for positional args tuple")
        return args[key] if isinstance(key, int) else kwargs[key]

    def convert_field(self, value: object, conversion: str | None) -> object:
        text = type_text(value) if conversion in ("r", "s", "a") else None  # an engine class as PyTorch shows it
        if text is not None:
            return text
        if conversion is not None:  # `{!r}` builds the text before format_field sees it: judged first
            self.guards.budget.text(value, "this str.format field")
        return super().convert_field(value, conversion)

    def format_field(self, value: object, format_spec: str) -> str:
        self.guards.budget.format_spec_text(format_spec)
        self.guards.budget.text(value, "this str.format field")  # judged before format() builds it
        text = format(_shown(value), format_spec)
        self.length += len(text)
        self.guards.budget.items(self.length, "the result of str.format")
        return text

    def vformat(self, format_string: str, args: object, kwargs: object) -> str:
        _check_numbering(format_string, set())
        return self.guards._after(super().vformat(format_string, args, kwargs))


def _check_numbering(template: str, seen: set[str], depth: int = 2) -> None:
    """str.format's own ValueError when automatic and manual field numbers are mixed, in its own words (the
    pure-Python `string.Formatter` words one of the two cases differently); nested specs in order, as str.format."""
    if depth < 0:
        return  # str.format's "Max string recursion exceeded" comes from the formatter
    for _literal, field, spec, _conversion in string.Formatter().parse(template):
        if field is None:
            continue
        first = field.split(".", 1)[0].split("[", 1)[0]
        mode = "auto" if first == "" else "manual" if first.isdigit() else None
        if mode == "manual" and "auto" in seen:
            raise ValueError("cannot switch from automatic field numbering to manual field specification")
        if mode == "auto" and "manual" in seen:
            raise ValueError("cannot switch from manual field specification to automatic field numbering")
        if mode is not None:
            seen.add(mode)
        _check_numbering(spec or "", seen, depth - 1)


def _is_own_guard(name: str, value: object) -> bool:
    """Whether a builtin of a snippet function is the runner's own guard for that name (`print` of some run)."""
    return (isinstance(value, types.MethodType) and type(value.__self__) is Guards
            and value.__func__ is getattr(Guards, _OWN_BUILTINS[name]))


def _function_str(fn: object, snippet_print: object) -> str:
    """How Python names a function in its call errors (`print()`, `list.append()`, `__main__.f()`)."""
    if fn == snippet_print:
        return "print()"
    qualname = getattr(fn, "__qualname__", None)
    if not isinstance(qualname, str):
        return str(fn)
    module = getattr(fn, "__module__", None)
    return f"{module}.{qualname}()" if isinstance(module, str) and module != "builtins" else f"{qualname}()"


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


def _log2_factorial(n: int) -> int:
    """About how many bits n! has (an upper bound to within a few bits; Stirling through lgamma)."""
    return int(math.lgamma(n + 1) / math.log(2)) + 2 if n < 2**53 else 2**63


def _shown(value: object) -> object:
    """An engine class as PyTorch prints it (`<class 'torch.Tensor'>`); any other value as it is."""
    text = type_text(value)
    return value if text is None else text


def _is_builtin_callable(value: object) -> bool:
    """Builtins whose checks live in the call guard: builtin functions and methods, and the classes that call
    a function they are given (`torch.no_grad()(map)(type, ...)` must not make classes)."""
    return isinstance(value, _BUILTIN_METHOD_TYPES) or any(value is kind for kind in (type, map, filter))


class _ArrayStore:
    """Stands in for a numpy array being assigned into: numbers and numeric arrays only go in."""

    __slots__ = ("_target",)

    def __init__(self, target: np.ndarray) -> None:
        self._target = target

    def __setitem__(self, index: object, value: object) -> None:
        reason = dtype_refusal(self._target) or dtype_refusal(value)
        if reason is None and not isinstance(value, (int, float, bool, np.number, np.bool_, np.ndarray, Tensor)):
            reason = f"assigning a {type(value).__name__} into a numpy array is refused for safety in snippets"
        if reason is not None:
            raise SnippetRejected(reason)
        self._target[index] = value


def _check_dtypes(value: object) -> None:
    """Refuse object/str/bytes/void arrays in a result, also inside a short tuple or list of results
    (`y, v = vjp(f, x)`, `for r in results:` unpack what this let through)."""
    reason = dtype_refusal(value)
    if reason is None and isinstance(value, (tuple, list)) and len(value) <= _SHORT:
        for element in value:
            reason = dtype_refusal(element)
            if reason is None and isinstance(element, tuple) and len(element) <= _SHORT:
                reason = next(filter(None, map(dtype_refusal, element)), None)
            if reason is not None:
                break
    if reason is not None:
        raise SnippetRejected(reason)


_PRINTOPTION_CAPS = {"precision": 100, "threshold": None, "edgeitems": 1000, "linewidth": 10_000}


def _check_printoptions(args: tuple, kwargs: dict) -> None:
    """`set_printoptions(precision=10**6)` would make every printed element a megabyte: capped."""
    for (name, cap), value in zip(_PRINTOPTION_CAPS.items(), args):
        kwargs = {**kwargs, name: value}
    for name, cap in _PRINTOPTION_CAPS.items():
        value = kwargs.get(name)
        if cap is not None and isinstance(value, (int, float)) and value > cap:
            raise SnippetRejected(f"set_printoptions({name}={value!r:.20}) is above {cap}; larger values are "
                                  "refused for safety in snippets")


def _check_ndarray_arguments(name: str, args: tuple, kwargs: dict) -> None:
    """numpy methods get axes, numeric dtypes and flags; never `out=` (writes anywhere) or other dtypes."""
    positional = NDARRAY_POSITIONAL.get(name)
    if positional is not None and len(args) > positional:
        raise SnippetRejected(f"more than {positional} positional arguments to numpy's '.{name}' (its `out`) "
                              "are refused for safety in snippets")
    extra = set(kwargs) - NDARRAY_KEYWORDS
    if extra:
        raise SnippetRejected(f"the argument {sorted(extra)[0]}= of numpy's '.{name}' is refused for safety "
                              "in snippets")
    requested = kwargs.get("dtype", args[1] if positional == 2 and len(args) > 1 else None)
    reason = requested_dtype_refusal(requested) or next(
        filter(None, map(dtype_refusal, (*args, *kwargs.values()))), None)
    if reason is not None:
        raise SnippetRejected(reason)


_SHORT = 64  # tuples/lists up to this length have their elements' dtypes checked
# builtins that may be handed to the engine or to sorted/min/max as a function: O(1) work per call
_CALLBACK_BUILTINS = frozenset({len, abs, bool, int, float})


def _is_engine_callable(fn: object) -> bool:
    """Engine functions and classes, engine methods bound to engine or snippet objects or classes
    (`model.parameters`, `MyFunction.apply`), and the snippet's own classes and instances, whose special
    methods are all the engine's (`Net(...)`, `model(x)`: a snippet class defines no `__call__`)."""
    if isinstance(fn, types.FunctionType):
        return is_engine_module_name(fn.__module__)
    if isinstance(fn, types.MethodType):
        owner = fn.__self__
        return is_engine_module_name(getattr(fn.__func__, "__module__", None)) and (
            is_engine_object(owner) or is_engine_type(owner) or is_snippet_object(owner) or is_snippet_class(owner)
        )
    if is_engine_type(fn) or is_snippet_class(fn):
        return True
    return (is_engine_object(fn) or is_snippet_object(fn)) and callable(fn)


def _length(r: range) -> int:
    try:
        return len(r)
    except OverflowError:
        return 2**63


def _describe(fn: object) -> str:
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
    return f"'{name}'"
