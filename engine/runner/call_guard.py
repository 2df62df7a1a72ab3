"""The call guard: every call a snippet writes (`f(x)`, `model(x)`, `sorted(xs, key=f)`, `"{}".format(x)`) goes
through `CallGuard.call`, which tells the snippet's own functions, the engine's API, the safe builtins, builtin
methods and `math` apart, vets the arguments (functions handed over are wrapped so that their calls are guarded
too) and sizes what a builtin is about to build before it runs.
"""
from __future__ import annotations

import builtins
import math
import operator
import types
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from engine.dtypes import dtype as EngineDtype
from engine.graph import AccumulateGrad, Node
from engine.printing import set_printoptions

from . import sizes
from .errors import ResourceLimitExceeded, SnippetRejected, reason
from .limits import shape_of
from .surface import (
    BUILTIN_METHODS,
    MATH_NAMES,
    NDARRAY_ATTRS,
    NDARRAY_KEYWORDS,
    NDARRAY_POSITIONAL,
    NODE_MODULE,
    NUMERIC_KINDS,
    SAFE_BUILTINS,
    dtype_refusal,
    is_engine_module_name,
    is_engine_object,
    is_engine_type,
    is_snippet_class,
    is_snippet_object,
    public_engine_types,
    requested_dtype_refusal,
    type_text,
)
from .text_guard import _SnippetFormatter

if TYPE_CHECKING:
    from .guards import Guards

# builtins that drain an iterable in C, where no snippet code (and so no tick) runs per element
_CONSUMERS = frozenset({list, tuple, set, sorted, sum, min, max, any, all, dict})
_BUILTIN_METHOD_TYPES = (types.BuiltinMethodType, types.MethodWrapperType)
# builtins that are the runner's own guards: `print`, and `__build_class__`, which a `class` statement calls
_OWN_BUILTINS = {"print": "print", "__build_class__": "build_class"}
_BUILTIN_NAMES = frozenset(SAFE_BUILTINS) | set(_OWN_BUILTINS)


class CallGuard:
    """The calls of one execution (a part of `guards.Guards`, whose budget, builtins and result checks it uses)."""

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
                raise SnippetRejected(reason("new_dtype_refused"))
            if fn is set_printoptions:
                _check_printoptions(args, kwargs)
            if getattr(fn, "__name__", "") in sizes.CONCAT and args and isinstance(args[0], (list, tuple)):
                # the backward of a join passes every input to every input's rule: n² work in one call
                self.budget.nested_work(None, ("what_joining", {"count": len(args[0])}), factor=len(args[0]) ** 2)
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
        raise SnippetRejected(reason("call_not_allowed", what=_describe(fn)))

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
        raise SnippetRejected(reason("foreign_builtins"))

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
            raise SnippetRejected(reason("callback_refused", what=_describe(value), to=_describe(fn)))
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
                raise SnippetRejected(reason("type_three_arguments"))
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
            self.budget.items(_length(result), ("what_a", {"kind": "range"}))
            return result
        if fn is round and (len(args) > 1 or "ndigits" in kwargs):
            ndigits = args[1] if len(args) > 1 else kwargs["ndigits"]
            if ndigits is not None:  # round() itself takes any __index__ (a tensor too): judge that value
                ndigits = operator.index(ndigits)
                if abs(ndigits) > self.budget.limits.max_literal:
                    raise ResourceLimitExceeded(reason("round_digits", digits=ndigits))
                args = (args[0], ndigits) if len(args) > 1 else args
                kwargs = {**kwargs, "ndigits": ndigits} if "ndigits" in kwargs else kwargs
        if fn in (str, repr) and args:
            self.budget.text(args[0], ("what_call_of_value", {"call": f"{fn.__name__}()"}))
        if fn in _CONSUMERS:
            if fn is sum and (len(args) > 1 or "start" in kwargs):
                start = args[1] if len(args) > 1 else kwargs["start"]
                if not isinstance(start, (int, float, complex)) and shape_of(start) is None:
                    raise SnippetRejected(reason("sum_start_not_number"))
            iterable_args = 1 if (fn not in (min, max) or len(args) == 1) else 0
            args = tuple(self._bounded(a) if i < iterable_args else a for i, a in enumerate(args))
            values = args[0] if iterable_args and args else args
            if fn in (sum, min, max, sorted) and isinstance(values, (list, tuple)):
                self._check_broadcast([s for s in map(shape_of, values) if s is not None], ("what_result_of", {"op": f"{fn.__name__}()"}))
            if fn in (sorted, min, max, set, dict) and isinstance(values, (list, tuple)):
                rounds = max(1, len(values).bit_length()) if fn is sorted else 1  # comparisons per element
                self.budget.nested_work(values, ("what_call_of_values", {"call": f"{fn.__name__}()"}), factor=rounds)
        return fn(*args, **kwargs)

    def _call_method(self, method: types.BuiltinMethodType, args: tuple, kwargs: dict) -> object:
        owner, name = method.__self__, method.__name__
        if isinstance(owner, (np.ndarray, np.generic)):
            if name not in NDARRAY_ATTRS:
                raise SnippetRejected(reason("numpy_attribute_unavailable", name=name))
            _check_ndarray_arguments(name, args, kwargs)
            if name == "astype":
                self._check_astype(owner, args, kwargs)
            return method(*args, **kwargs)
        if name not in BUILTIN_METHODS.get(type(owner), ()):
            raise SnippetRejected(reason("call_not_allowed", what=_describe(method)))
        if name in ("join", "extend", "update", "union", "intersection", "difference") and args:
            args = (self._bounded(args[0]), *args[1:])
        if type(owner) is str and name == "format":
            return _SnippetFormatter(self).vformat(owner, args, kwargs)
        if type(owner) is list and name == "sort" and kwargs.get("key") is not None:
            key = self._callable_arguments(method, (), {"key": kwargs["key"]})[1]["key"]
            kwargs = {**kwargs, "key": self._through_guard(key)}
        if type(owner) is str:
            self.budget.items(sizes.str_method_length(owner, name, args), ("what_a", {"kind": "str"}))
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
            raise SnippetRejected(reason("type_of_internal", kind=kind.__name__))
        return kind  # also a snippet class (`type(model).__name__`): it is reachable by its name anyway

    def _check_astype(self, array: object, args: tuple, kwargs: dict) -> None:
        """`.astype(float)`, `.astype("float32")`: numeric and bool dtypes only, sized before converting."""
        if not args and "dtype" not in kwargs:
            return  # numpy's own TypeError
        dtype = np.dtype(args[0] if args else kwargs["dtype"])
        if dtype.kind not in NUMERIC_KINDS:  # the engine has no complex numbers either
            raise SnippetRejected(reason("astype_refused", dtype=repr(str(dtype))))
        self.budget.elements(int(np.size(array)), ("what_result_of", {"op": "astype"}), dtype.itemsize)

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
                self._check_broadcast(shapes, ("what_result_of", {"op": "math.prod()"}))
                work = sum(map(math.prod, shapes))  # one uninterruptible C loop of tensor products
                if work > self.budget.limits.max_product_work:
                    raise ResourceLimitExceeded(reason("math_prod_work", work=work,
                                                       limit=self.budget.limits.max_product_work))
        elif name == "lcm":
            self.budget.int_bits(sum(a.bit_length() for a in args if isinstance(a, int)))
        return fn(*args, **kwargs)


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


def _is_own_guard(name: str, value: object) -> bool:
    """Whether a builtin of a snippet function is the runner's own guard for that name (`print` of some run)."""
    return (isinstance(value, types.MethodType) and isinstance(value.__self__, CallGuard)
            and value.__func__ is getattr(type(value.__self__), _OWN_BUILTINS[name]))


def _log2_factorial(n: int) -> int:
    """About how many bits n! has (an upper bound to within a few bits; Stirling through lgamma)."""
    return int(math.lgamma(n + 1) / math.log(2)) + 2 if n < 2**53 else 2**63


def _is_builtin_callable(value: object) -> bool:
    """Builtins whose checks live in the call guard: builtin functions and methods, and the classes that call
    a function they are given (`torch.no_grad()(map)(type, ...)` must not make classes)."""
    return isinstance(value, _BUILTIN_METHOD_TYPES) or any(value is kind for kind in (type, map, filter))


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
            raise SnippetRejected(reason("printoption_too_large", option=f"{name}={value!r:.20}", cap=cap))


def _check_ndarray_arguments(name: str, args: tuple, kwargs: dict) -> None:
    """numpy methods get axes, numeric dtypes and flags; never `out=` (writes anywhere) or other dtypes."""
    positional = NDARRAY_POSITIONAL.get(name)
    if positional is not None and len(args) > positional:
        raise SnippetRejected(reason("numpy_out_refused", count=positional, name=name))
    extra = set(kwargs) - NDARRAY_KEYWORDS
    if extra:
        raise SnippetRejected(reason("numpy_argument_refused", argument=sorted(extra)[0], name=name))
    requested = kwargs.get("dtype", args[1] if positional == 2 and len(args) > 1 else None)
    refusal = requested_dtype_refusal(requested) or next(
        filter(None, map(dtype_refusal, (*args, *kwargs.values()))), None)
    if refusal is not None:
        raise SnippetRejected(refusal)


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
