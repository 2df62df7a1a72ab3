"""Resource bounds: the `Limits` a snippet runs under and the `Budget` that counts against them.

Sizes are checked *before* the work that would allocate them (a requested shape, a broadcast, a
repeated list, a power of a big int), so `torch.ones(10**9)` or `2**10**10` never starts; results
are checked again afterwards as a second line.  Time is checked at every step (loop iteration,
comprehension element, call, entry into a snippet function) and at every tensor, sweep node and module call
of the engine, so a loop stops within one step of the deadline and the engine's own loops stop too.
"""
from __future__ import annotations

import math
import os
import re
import time
from dataclasses import dataclass

import numpy as np

from engine.tensor import Tensor

from .errors import Phrase, ResourceLimitExceeded, reason


@dataclass(frozen=True)
class Limits:
    """The bounds of one run (or one `evaluate`); every field is a hard cap."""

    max_tensor_bytes: int = 32 * 2**20  # bytes of one tensor / array (2000×2000 float64 fits)
    max_elements: int | None = None    # optional cap on the elements of one tensor; None: the byte bound only
    max_memory: int = 64 * 2**20       # bytes of all live tensors created by the snippet
    max_growth: int = 256 * 2**20      # growth of the whole process's memory during the run
    max_steps: int = 100_000           # loop iterations + comprehension elements + calls
    max_seconds: float = 2.0           # wall time
    max_depth: int = 100               # nested calls of the snippet's own functions
    max_items: int = 10**6             # length of one list/tuple/str/dict/set/range
    max_int_bits: int = 100_000        # size of one Python int (about 30 000 digits)
    max_source: int = 100_000          # characters of source
    max_literal: int = 10_000          # characters of one literal / width in a format spec
    max_output: int = 1_000_000        # characters printed
    max_product_work: int = 10**8      # multiply-adds of one matrix product (one numpy call: no tick stops it)
    max_call_work: int = 10**7         # elements one comparison/hash/sort of nested containers visits (one C call)


def shape_of(value: object) -> tuple[int, ...] | None:
    """The shape of a tensor-like value (engine Tensor or numpy array), None for anything else."""
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        return value.shape
    return None


DEFAULT_ITEMSIZE = 4  # float32, the default dtype, when a size is checked before the dtype is known


def itemsize_of(value: object) -> int | None:
    """Bytes per element of a tensor-like value, None for anything else."""
    if isinstance(value, (np.ndarray, np.generic)):
        return value.dtype.itemsize
    if isinstance(value, Tensor):
        dtype = value.dtype
        return np.dtype(getattr(dtype, "numpy", dtype)).itemsize
    return None


def _megabytes(nbytes: int) -> str:
    return f"{nbytes / 2**20:.3g} MB"


def operand_shape(value: object, _depth: int = 0) -> tuple[int, ...] | None:
    """The shape numpy gives an operand: a tensor's or array's, a nested list's (by its first elements),
    () for a number; None for anything else."""
    shape = shape_of(value)
    if shape is not None:
        return shape
    if isinstance(value, (list, tuple)) and _depth < 32:
        inner = operand_shape(value[0], _depth + 1) if value else ()
        return None if inner is None else (len(value), *inner)
    if isinstance(value, (int, float, complex)):
        return ()
    return None


def nested_elements(value: object, _depth: int = 0) -> int:
    """Estimate how many elements a (nested) list of numbers or tensors turns into as one tensor."""
    shape = shape_of(value)
    if shape is not None:
        return math.prod(shape)
    if isinstance(value, (list, tuple)) and _depth < 64:
        if not value:
            return 0
        return len(value) * max(1, nested_elements(value[0], _depth + 1))
    return 1


def broadcast_elements(shapes: list[tuple[int, ...]]) -> int | None:
    """Elements of the broadcast of `shapes`, or None when they do not broadcast (the op will say so). Each
    distinct shape counts once (a million arguments of one shape is one shape for numpy's broadcast)."""
    try:
        return math.prod(np.broadcast_shapes(*dict.fromkeys(map(tuple, shapes))))
    except ValueError:
        return None


class Budget:
    """The counters of one execution; raises `ResourceLimitExceeded` with a plain-language reason."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.steps = 0
        self.checks = 0
        self.depth = 0
        self.output = 0
        self.deadline = time.monotonic() + limits.max_seconds
        self.baseline = process_memory()

    def tick(self) -> None:
        self.steps += 1
        if self.steps > self.limits.max_steps:
            raise ResourceLimitExceeded(reason("too_many_steps", limit=self.limits.max_steps))
        self.clock()

    def clock(self) -> None:
        """The wall-time bound (and, every 256 checks, the memory backstop): at every step, and inside the
        engine's own loops, which report through its size hook without counting as steps."""
        self.checks += 1
        if self.checks % 256 == 0:
            self.memory()
        if time.monotonic() > self.deadline:
            raise ResourceLimitExceeded(reason("ran_too_long", seconds=f"{self.limits.max_seconds:g}"))

    def memory(self) -> None:
        """The backstop for everything not counted one by one (lists of lists, graph internals)."""
        now = process_memory()
        if now is not None and self.baseline is not None and now - self.baseline > self.limits.max_growth:
            raise ResourceLimitExceeded(reason("too_much_memory", mb=self.limits.max_growth // 2**20))

    def enter(self) -> None:
        self.depth += 1
        if self.depth > self.limits.max_depth:
            raise ResourceLimitExceeded(reason("too_deep", limit=self.limits.max_depth))

    def leave(self) -> None:
        self.depth -= 1

    def elements(self, count: int, what: Phrase = ("what_tensor", {}), itemsize: int | None = None) -> None:
        """One tensor's size: bytes against `max_tensor_bytes` (float32's 4 bytes per element when the dtype
        is not known yet; the result is checked again with its real dtype)."""
        nbytes = count * (itemsize or DEFAULT_ITEMSIZE)
        if nbytes > self.limits.max_tensor_bytes:
            raise ResourceLimitExceeded(reason("too_many_bytes", what=what, count=count, size=_megabytes(nbytes),
                                               limit=_megabytes(self.limits.max_tensor_bytes)))
        if self.limits.max_elements is not None and count > self.limits.max_elements:
            raise ResourceLimitExceeded(reason("too_many_elements", what=what, count=count,
                                               limit=self.limits.max_elements))

    def product(self, a: tuple[int, ...], b: tuple[int, ...], what: Phrase) -> None:
        """A matrix product: its result's size, and the work of computing it in one uninterruptible call."""
        count = matmul_elements(a, b) or 0
        self.elements(count, what)
        self.product_work(count * (a[-1] if a else 0), what)

    def product_work(self, work: int, what: Phrase) -> None:
        if work > self.limits.max_product_work:
            raise ResourceLimitExceeded(reason("too_much_product_work", what=what, work=work,
                                               limit=self.limits.max_product_work))

    def items(self, count: int, what: Phrase) -> None:
        if count > self.limits.max_items:
            raise ResourceLimitExceeded(reason("too_many_items", what=what, count=count, limit=self.limits.max_items))

    def int_bits(self, bits: int) -> None:
        if bits > self.limits.max_int_bits:
            raise ResourceLimitExceeded(reason("integer_too_long", digits=int(bits * 0.30103),
                                               limit=int(self.limits.max_int_bits * 0.30103)))

    def nested_work(self, value: object, what: Phrase, factor: int = 1) -> None:
        """Refuse one call that would visit more than `max_call_work` elements of nested containers
        (`a == b`, `x in a`, `sorted(a)`, `set(a)`, `a.count(x)` run in C: no step count stops them)."""
        from .sizes import nested_cost

        limit = self.limits.max_call_work
        work = nested_cost(value, limit // max(factor, 1)) * factor
        if work > limit:
            raise ResourceLimitExceeded(reason("too_much_call_work", what=what, limit=limit))

    def text(self, value: object, what: Phrase, fields: int = 1) -> None:
        """Refuse building a string (str, repr, print, f-string, %-format) longer than `max_items`,
        judged from the value before the string exists."""
        from .sizes import nested_cost

        limit = self.limits.max_items
        length = nested_cost(value, limit // max(fields, 1), text=True) * fields
        if length > limit:
            raise ResourceLimitExceeded(reason("text_too_long", what=what, limit=limit))

    def printed(self, count: int) -> None:
        self.output += count
        if self.output > self.limits.max_output:
            raise ResourceLimitExceeded(reason("printed_too_much", limit=self.limits.max_output))

    # --- estimates made before an operation runs -------------------------------------------------

    def before_binop(self, op: str, left: object, right: object) -> None:
        """Refuse arithmetic whose result would be too big, before computing it."""
        lshape, rshape = shape_of(left), shape_of(right)
        if (lshape is None) != (rshape is None):  # an array with a list: numpy broadcasts the list's shape
            lshape, rshape = operand_shape(left), operand_shape(right)
        if lshape is not None and rshape is not None:
            if op == "MatMult":
                self.product(lshape, rshape, ("what_result_of", {"op": "@"}))
            else:
                self.elements(broadcast_elements([lshape, rshape]) or 0, ("what_result_of", {"op": OP_SYMBOL[op]}),
                              max(itemsize_of(left) or 0, itemsize_of(right) or 0) or None)
            return
        if lshape is not None or rshape is not None:
            return  # tensor with a Python scalar: same size as the tensor
        if isinstance(left, bool) or isinstance(right, bool):
            return
        if isinstance(left, int) and isinstance(right, int):
            if op == "Pow" and right > 0:
                self.int_bits(max(0, abs(left).bit_length() - 1) * right + 1)
            elif op == "Mult":
                self.int_bits(left.bit_length() + right.bit_length())
            elif op == "LShift" and right > 0:
                self.int_bits(left.bit_length() + right)
            return
        if op == "Mult":
            for seq, times in ((left, right), (right, left)):
                if isinstance(seq, (str, bytes, list, tuple)) and isinstance(times, int):
                    self.items(len(seq) * max(times, 0), ("what_repeated", {"kind": type(seq).__name__}))
        if op == "Mod" and isinstance(left, str):
            self.format_spec_text(left, percent=True)

    def format_spec_text(self, text: str, percent: bool = False) -> None:
        """Refuse `*` widths and widths/precisions beyond `max_literal` in a format spec or %-format."""
        specs = re.findall(r"%[^a-zA-Z%]*", text) if percent else [text]
        for spec in specs:
            if percent and "*" in spec:
                raise ResourceLimitExceeded(reason("star_width_not_supported"))
            for number in re.findall(r"\d+", spec):
                if len(number) > 6 or int(number) > self.limits.max_literal:
                    raise ResourceLimitExceeded(reason("format_width_too_large", number=number,
                                                       limit=self.limits.max_literal))

    # --- checks made after an operation ----------------------------------------------------------

    def result(self, value: object) -> None:
        """Second line of defence: check what an operation produced."""
        if type(value) in _SMALL:
            return
        shape = shape_of(value)
        if shape is not None:
            self.elements(math.prod(shape), itemsize=itemsize_of(value))
            if math.prod(shape) >= _BIG:
                self.memory()
        elif isinstance(value, (str, bytes, list, tuple, dict, set, frozenset)):
            self.items(len(value), ("what_a", {"kind": type(value).__name__}))
            if len(value) >= _BIG:
                self.memory()
        elif isinstance(value, int) and not isinstance(value, bool):
            self.int_bits(value.bit_length())


_SMALL = frozenset({float, bool, type(None)})
_BIG = 10_000  # results at least this big also trigger the process-memory check
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


_statm: list[int] = []   # this process's /proc/<pid>/statm, opened before confinement (watch_own_memory)


def watch_own_memory() -> tuple[int, ...]:
    """Open this process's statm now, for `process_memory` to read after confinement has closed /proc to it;
    the descriptors to keep open (none where there is no /proc)."""
    try:
        _statm[:] = [os.open(f"/proc/{os.getpid()}/statm", os.O_RDONLY)]
    except OSError:
        _statm.clear()
    return tuple(_statm)


def process_memory() -> int | None:
    """Resident memory of this process in bytes (Linux), or None where it cannot be read cheaply."""
    try:
        if _statm:  # lseek and read: the allow-list has no pread
            os.lseek(_statm[0], 0, os.SEEK_SET)
            return int(os.read(_statm[0], 256).split()[1]) * _PAGE
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


def matmul_elements(a: tuple[int, ...], b: tuple[int, ...]) -> int | None:
    """Elements of `a @ b` by numpy's rules, or None when the shapes do not fit."""
    if not a or not b:
        return None
    if len(a) == 1 and len(b) == 1:
        return 1
    if len(b) == 1:
        return math.prod(a[:-1])
    if len(a) == 1:
        return math.prod(b[:-2]) * b[-1]
    batch = broadcast_elements([a[:-2], b[:-2]])
    return None if batch is None else batch * a[-2] * b[-1]


OP_SYMBOL = {
    "Add": "+", "Sub": "-", "Mult": "*", "Div": "/", "FloorDiv": "//", "Mod": "%", "Pow": "**",
    "MatMult": "@", "LShift": "<<", "RShift": ">>", "BitOr": "|", "BitXor": "^", "BitAnd": "&",
    "Eq": "==", "NotEq": "!=", "Lt": "<", "LtE": "<=", "Gt": ">", "GtE": ">=",
}
