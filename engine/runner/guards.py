"""The runtime half of the allow-list: the `__sg_*` functions the rewritten snippet calls.

Each guard checks the *value* it is handed (the static check only saw names), enforces the size
limits before the operation allocates, runs it, and checks the result.  Values a snippet can reach
therefore come only from the engine's public API, the safe builtins and its own code.
"""
from __future__ import annotations

import builtins
import math
import operator
import types
import weakref
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from engine.dtypes import dtype as EngineDtype
from engine.printing import set_printoptions
from engine.tensor import Tensor

from . import sizes
from .errors import ResourceLimitExceeded, SnippetRejected
from .limits import Budget, Limits, broadcast_elements, shape_of
from .policy import import_engine_module
from .surface import (
    BUILTIN_METHODS, NDARRAY_ATTRS, NDARRAY_KEYWORDS, NDARRAY_POSITIONAL, SAFE_BUILTINS, attribute_refusal,
    dtype_refusal, is_engine_module_name, is_engine_object, is_engine_type, is_tensor, requested_dtype_refusal,
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
_SAFE_BUILTIN_NAMES = frozenset(SAFE_BUILTINS)


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
        self._trusted_builtins: dict[int, dict] = {}  # earlier runs' builtins, checked once per run

    def size_guard(self, shape: tuple[int, ...]) -> None:
        """Vet a shape the engine is about to allocate (see `execute._size_hook`)."""
        self.budget.elements(math.prod(shape))

    def names(self) -> dict[str, object]:
        """The `__sg_*` entries for the snippet's globals."""
        return {
            "__sg_" + name: getattr(self, name)
            for name in ("tick", "attr", "settarget", "item", "store", "slice", "call", "binop", "iop",
                         "cmp", "chain", "fmt", "ctx", "import_", "key")
        }

    # --- steps -----------------------------------------------------------------------------------

    def tick(self) -> bool:
        self.budget.tick()
        return True

    def _ticked(self, iterable: Iterable[object]) -> Iterator[object]:
        for item in iterable:
            self.budget.tick()
            yield item

    def _bounded(self, value: object) -> object:
        """A materialised container as is; anything lazy drained with a tick per element."""
        if isinstance(value, _MATERIALISED):
            return value
        if isinstance(value, types.GeneratorType) and value.gi_code in self.codes:
            return list(value)  # the snippet's own generator expression ticks by itself
        return list(self._ticked(value))  # raises TypeError for non-iterables, like the builtin

    # --- attributes, items, imports --------------------------------------------------------------

    def attr(self, obj: object, name: str) -> object:
        reason = attribute_refusal(obj, name)
        if reason is not None:
            raise SnippetRejected(reason)
        value = getattr(obj, name)
        reason = value_refusal(value) or dtype_refusal(value)
        if reason is not None:
            raise SnippetRejected(reason)
        return value

    def settarget(self, obj: object, name: str) -> object:
        if not is_tensor(obj):
            raise SnippetRejected(f"only attributes of tensors can be assigned in snippets (`x.{name} = ...`)")
        if name.startswith("_"):
            raise SnippetRejected(f"'{name}': names starting with '_' are internals and not available in snippets")
        return obj

    def item(self, obj: object, index: object) -> object:
        if isinstance(index, tuple) and isinstance(obj, (dict, set, frozenset)):
            self.key(index)
        shape = shape_of(obj)
        if shape is not None:
            self.budget.elements(sizes.indexed_elements(shape, index), "the result of indexing")
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
            raise SnippetRejected("only torch's context managers (such as `with torch.no_grad():`) are supported")
        return manager

    def import_(self, dotted: str) -> types.ModuleType:
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
        self.budget.text(value, "this f-string field")
        if conversion != -1:
            value = {ord("s"): str, ord("r"): repr, ord("a"): ascii}[conversion](value)
        self.budget.format_spec_text(spec)
        return self._after(format(value, spec))

    # --- calls -----------------------------------------------------------------------------------

    def call(self, fn: object, /, *args: object, **kwargs: object) -> object:
        self.budget.tick()
        # every call counts as a level: calls only nest when something calls back into the snippet
        # (its own recursion, jacobian(f, x), sorted(key=f)), and that is what the depth bounds
        self.budget.enter()
        try:
            return self._dispatch(fn, args, kwargs)
        finally:
            self.budget.leave()

    def _dispatch(self, fn: object, args: tuple, kwargs: dict) -> object:
        if isinstance(fn, types.FunctionType) and fn.__code__ in self.codes:
            self._check_function_builtins(fn)
            return fn(*args, **kwargs)
        if fn is self.print:
            return self.print(*args, **kwargs)
        if id(fn) in self._builtin_ids:
            return self._after(self._call_builtin(fn, args, kwargs))
        if _is_engine_callable(fn):
            if fn is EngineDtype:  # torch.dtype('x', 'U1000000') would make huge elements
                raise SnippetRejected("new dtypes cannot be made in snippets; use torch.float32, torch.float64, ...")
            if fn is set_printoptions:
                _check_printoptions(args, kwargs)
            if getattr(fn, "__name__", "") in sizes.CONCAT and args and isinstance(args[0], (list, tuple)):
                # the backward of a join passes every input to every input's rule: n² work in one call
                self.budget.nested_work(None, f"joining {len(args[0])} tensors", factor=len(args[0]) ** 2)
            owner = getattr(fn, "__self__", None)
            args, kwargs = self._callable_arguments(fn, args, kwargs)
            self._check_elements(sizes.engine_call_elements(fn, owner, args, kwargs))
            product = sizes.engine_call_product(fn, owner, args)
            if product is not None:
                self.budget.product(*product, "the matrix product")
            return self._after(fn(*args, **kwargs))
        if isinstance(fn, _BUILTIN_METHOD_TYPES) and not isinstance(fn.__self__, types.ModuleType):
            return self._after(self._call_method(fn, args, kwargs))
        if not callable(fn):
            return fn(*args, **kwargs)  # Python's own "'X' object is not callable"
        raise SnippetRejected(f"calling {_describe(fn)} is not allowed in snippets")

    def _check_function_builtins(self, fn: types.FunctionType) -> None:
        """A snippet function resolves bare names through the builtins it was created with: they must be
        a runner's safe builtins (never a module's namespace that a rebinding of `__builtins__` put there)."""
        found = fn.__builtins__
        if found is self.builtins or id(found) in self._trusted_builtins:
            return
        if type(found) is dict and found.keys() == _SAFE_BUILTIN_NAMES and all(
                value is getattr(builtins, name) or name == "print" and getattr(value, "__self__", None).__class__
                is Guards for name, value in found.items()):
            self._trusted_builtins[id(found)] = found  # held for this run, so the id stays its own
            return
        raise SnippetRejected("this function's builtins are not the runner's; running it is refused for safety")

    def _callable_arguments(self, fn: object, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """Vet the arguments of an engine call or a builtin: no object/str arrays; a function handed over
        (`jacobian(f, x)`, `no_grad()(f)`, `sorted(key=f)`) must be the snippet's own — wrapped so what it
        returns is checked like any result — an engine function, or a builtin that does O(1) work per call
        (`len`): a wrapper must not run `sum`, `str` or `sorted` where no guard sees their arguments."""
        def vet(value: object) -> object:
            _check_dtypes(value)
            if not callable(value) or isinstance(value, type) and (value in _CALLBACK_BUILTINS or is_engine_type(value)):
                return value
            if isinstance(value, types.FunctionType) and value.__code__ in self.codes:
                return self._callback(value)
            if value in _CALLBACK_BUILTINS or _is_engine_callable(value):
                return value
            raise SnippetRejected(f"passing {_describe(value)} to {_describe(fn)} as a function to call is refused "
                                  "for safety in snippets (pass your own function or a lambda)")
        return tuple(map(vet, args)), {name: vet(value) for name, value in kwargs.items()}

    def _callback(self, function: types.FunctionType) -> Callable[..., object]:
        def checked(*args: object, **kwargs: object) -> object:
            self._check_function_builtins(function)
            return self._after(function(*args, **kwargs))
        checked.__name__ = checked.__qualname__ = function.__name__
        return checked

    def _call_builtin(self, fn: object, args: tuple, kwargs: dict) -> object:
        if fn in (sorted, min, max) and "key" in kwargs:
            kwargs = self._callable_arguments(fn, (), {"key": kwargs["key"]})[1] | {
                k: v for k, v in kwargs.items() if k != "key"}
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
            return method(*args, **kwargs)
        if name not in BUILTIN_METHODS.get(type(owner), ()):
            raise SnippetRejected(f"calling {_describe(method)} is not allowed in snippets")
        if name in ("join", "extend", "update", "union", "intersection", "difference") and args:
            args = (self._bounded(args[0]), *args[1:])
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

    # --- output ----------------------------------------------------------------------------------

    def print(self, *values: object, sep: str | None = " ", end: str | None = "\n", file: object = None,
              flush: bool = False) -> None:
        if file is not None:
            raise SnippetRejected("print(file=...) is not available in snippets")
        if not isinstance(sep, (str, type(None))) or not isinstance(end, (str, type(None))):
            raise TypeError("sep and end must be None or a string")
        self.budget.text(values, "this print()")
        text = (" " if sep is None else sep).join(map(str, values)) + ("\n" if end is None else end)
        self.budget.printed(len(text))
        self.output.append(text)

    # --- checks ----------------------------------------------------------------------------------

    def _check_broadcast(self, shapes: list[tuple[int, ...]], what: str) -> None:
        if len(shapes) > 1:
            self.budget.elements(broadcast_elements(shapes) or 0, what)

    def _check_elements(self, count: int | None) -> None:
        if count is not None:
            self.budget.elements(count, "the requested tensor")

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
    if isinstance(fn, types.FunctionType):
        return is_engine_module_name(fn.__module__)
    if isinstance(fn, types.MethodType):
        return is_engine_module_name(getattr(fn.__func__, "__module__", None)) and (
            is_engine_object(fn.__self__) or is_engine_type(fn.__self__)
        )
    return is_engine_type(fn) or (is_engine_object(fn) and callable(fn))


def _length(r: range) -> int:
    try:
        return len(r)
    except OverflowError:
        return 2**63


def _describe(fn: object) -> str:
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
    return f"'{name}'"
