"""The runtime half of the allow-list: the `__sg_*` functions the rewritten snippet calls.

Each guard checks the *value* it is handed (the static check only saw names), enforces the size
limits before the operation allocates, runs it, and checks the result.  Values a snippet can reach
therefore come only from the engine's public API, the safe builtins and its own code.

`Guards` is one execution's set of guards. This module holds the steps, items, imports, operators,
unpacking, exceptions and the live-memory account; the guards of calls (`call_guard`), attributes
(`attribute_guard`), classes (`class_guard`) and text output (`text_guard`) are its parts, each in its module.
"""
from __future__ import annotations

import builtins
import itertools
import math
import operator
import sys
import types
import weakref
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from engine.tensor import Tensor

from . import sizes
from .attribute_guard import AttributeGuard
from .call_guard import CallGuard, _check_dtypes
from .class_guard import ClassGuard
from .errors import Phrase, ResourceLimitExceeded, SnippetRejected, reason, stop_within
from .limits import Budget, Limits, broadcast_elements, itemsize_of, shape_of
from .policy import import_engine_module
from .rewrite import guard_name
from .surface import (
    SAFE_BUILTINS,
    dtype_refusal,
    is_engine_object,
    is_tensor,
)
from .text_guard import TextGuard, _function_str

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
_MATERIALISED = (list, tuple, str, bytes, dict, set, frozenset, range)
_NESTED = (list, tuple, dict, set, frozenset, type({}.keys()), type({}.values()), type({}.items()))


class Guards(AttributeGuard, CallGuard, ClassGuard, TextGuard):
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
            self.budget.product_work(work, ("what_matrix_product", {}))
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

    # --- items, imports --------------------------------------------------------------------------

    def item(self, obj: object, index: object) -> object:
        if isinstance(index, tuple) and isinstance(obj, (dict, set, frozenset)):
            self.key(index)
        shape = shape_of(obj)
        if shape is not None:
            self.budget.elements(sizes.indexed_elements(shape, index), ("what_result_of_indexing", {}), itemsize_of(obj))
        return self._after(obj[index])

    def store(self, obj: object) -> object:
        if isinstance(obj, np.ndarray):
            return _ArrayStore(obj)
        return _ListStore(obj, self) if type(obj) is list else obj

    def key(self, value: object) -> object:
        """A set element or dict key about to be hashed (hashing a tuple visits all of it, in C)."""
        if isinstance(value, tuple):
            self.budget.nested_work(value, ("what_hashing", {}))
        return value

    def slice(self, lower: object, upper: object, step: object) -> slice:
        return slice(lower, upper, step)

    def ctx(self, manager: object) -> object:
        if not is_engine_object(manager):
            if not all(hasattr(type(manager), method) for method in ("__enter__", "__exit__")):
                return manager  # `with torch.no_grad:` gets Python's own TypeError
            raise SnippetRejected(reason("context_managers_only_torch"))
        return manager

    def import_(self, dotted: str) -> types.ModuleType:
        if dotted == "math":
            return math
        module = import_engine_module(dotted)
        if module is None:
            raise SnippetRejected(reason("module_unavailable", name=dotted))
        return module

    # --- operators -------------------------------------------------------------------------------

    def binop(self, op: str, left: object, right: object) -> object:
        self.budget.before_binop(op, left, right)
        if op == "Mod" and isinstance(left, str):
            fields = left.count("%") if isinstance(right, dict) else 1  # %(name)s may repeat one value
            self.budget.text(right, ("what_this", {"thing": "%-format"}), fields=max(fields, 1))
        return self._after(_BINOPS[op](left, right))

    def iop(self, op: str, left: object, right: object) -> object:
        self.budget.before_binop(op, left, right)
        return self._after(_IOPS[op](left, right))

    def cmp(self, op: str, left: object, right: object) -> object:
        if op not in ("Is", "IsNot"):
            for shapes in sizes.compared_shapes(op, left, right):
                self._check_broadcast(shapes, ("what_result_of_comparison", {}))
            if isinstance(right, _NESTED) and (isinstance(left, _NESTED) or op in ("In", "NotIn")):
                hashed = op in ("In", "NotIn") and isinstance(right, (set, frozenset, dict))
                self.budget.nested_work(left if hashed else (left, right), ("what_comparison", {}))
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

    # --- unpacking, exceptions -------------------------------------------------------------------

    def unpack(self, kind: str, *parts: object, _callee: object = None) -> object:
        """`[a, *xs]`, `(*xs, *ys)`, `{*xs}`: each part bounded (ticked when lazy) and the total sized before
        the list, tuple or set is built (`[*r, *r, *r]` must not multiply a big range unchecked)."""
        for part in parts:
            if kind != "set" and not hasattr(type(part), "__iter__"):
                where = "Value" if _callee is None else f"{_function_str(_callee, self.print)} argument"
                raise TypeError(f"{where} after * must be an iterable, not {type(part).__name__}")
        bounded = [self._bounded(part) for part in parts]
        self.budget.items(sum(map(len, bounded)), ("what_unpacked", {"kind": kind}))
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
            raise SnippetRejected(reason("raise_refused", name=kind.__name__))
        return exc  # anything else: Python's own checks (`raise 1` is a TypeError)

    # --- checks ----------------------------------------------------------------------------------

    def _check_broadcast(self, shapes: list[tuple[int, ...]], what: Phrase) -> None:
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
            raise ResourceLimitExceeded(reason("tensors_too_much_memory", mb=limit // 2**20))

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
            self._guards.budget.items(len(self._target) - removed + len(value), ("what_a", {"kind": "list"}))
        self._target[index] = value


class _ArrayStore:
    """Stands in for a numpy array being assigned into: numbers and numeric arrays only go in."""

    __slots__ = ("_target",)

    def __init__(self, target: np.ndarray) -> None:
        self._target = target

    def __setitem__(self, index: object, value: object) -> None:
        refused = dtype_refusal(self._target) or dtype_refusal(value)
        if refused is None and not isinstance(value, (int, float, bool, np.number, np.bool_, np.ndarray, Tensor)):
            refused = reason("assign_into_array", kind=type(value).__name__)
        if refused is not None:
            raise SnippetRejected(refused)
        self._target[index] = value


