"""Estimates of how big a result will be, computed from the operands before the operation runs.

They are upper bounds for what the snippet's own Python can blow up (an advanced index, a comparison
of containers, a str method, a repr). Engine calls are not estimated here: the engine's dispatch shows
every op's result shape (from its record's shape function), and every factory's, to the size guard
before it allocates (`engine.state.size_guard`, installed by `execute`).
"""
from __future__ import annotations

import math
import types
from collections.abc import Callable

import numpy as np

from engine.nn import Module
from engine.optim import Optimizer

from .limits import nested_elements, operand_shape, shape_of
from .surface import is_engine_type

# the joins, whose backward passes every input to every input's rule (n² work in one call)
CONCAT = frozenset({"cat", "stack"})


def numpy_dtype(tensor: object) -> np.dtype:
    dtype = tensor.dtype
    return np.dtype(getattr(dtype, "numpy", dtype))


def indexed_elements(shape: tuple[int, ...], index: object) -> int:
    """Upper bound of `x[index]`'s size; only advanced (list/tensor) indices can exceed x's size."""
    parts = index if isinstance(index, tuple) else (index,)
    advanced, consumed = 1, 0
    has_advanced = False
    for part in parts:
        part_shape = shape_of(part)
        if part_shape is not None or isinstance(part, (list, tuple)):
            has_advanced = True
            count = math.prod(part_shape) if part_shape is not None else nested_elements(part)
            advanced = max(advanced, count)
            is_mask = part_shape is not None and numpy_dtype(part) == np.bool_
            consumed += len(part_shape) if is_mask else 1
        elif part is not None and part is not Ellipsis:
            consumed += 1
    if not has_advanced:
        return 0  # basic indexing gives a view no larger than x
    return advanced * math.prod(shape[consumed:])


def compared_shapes(op: str, left: object, right: object) -> list[list[tuple[int, ...]]]:
    """The pairs of tensor shapes a comparison will broadcast (also inside `in` and list `==`)."""
    pairs: list[tuple[object, object]] = [(left, right)]
    if op in ("In", "NotIn") and isinstance(right, (list, tuple, set, frozenset, dict)):
        pairs = [(left, element) for element in right]
    elif isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
        pairs = list(zip(left, right))
    shapes = [[shape_of(a), shape_of(b)] for a, b in pairs]
    if pairs == [(left, right)] and (shapes[0][0] is None) != (shapes[0][1] is None):
        shapes = [[operand_shape(left), operand_shape(right)]]  # an array with a (nested) list broadcasts
    return [pair for pair in shapes if None not in pair]


def str_method_length(text: str, name: str, args: tuple) -> int:
    """Length of the string a str method returns, for the methods that can make it longer."""
    if name == "join" and args and isinstance(args[0], (list, tuple)):
        items = args[0]
        return sum(len(s) for s in items if isinstance(s, str)) + len(text) * max(len(items) - 1, 0)
    if name == "replace" and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        old, new = args[0], args[1]
        count = len(text) + 1 if old == "" else text.count(old)
        if len(args) > 2 and isinstance(args[2], int) and args[2] >= 0:
            count = min(count, args[2])
        return len(text) + count * max(len(new) - len(old), 0)
    if name in ("center", "ljust", "rjust", "zfill") and args and isinstance(args[0], int):
        return max(len(text), args[0])  # padded to the width asked for
    return len(text)


# --- the work and text of one call over nested containers ----------------------------------------
_VIEWS = (type({}.keys()), type({}.values()), type({}.items()))
_CONTAINERS = (list, tuple, set, frozenset, dict, *_VIEWS)
_FLAT = frozenset({int, float, bool, type(None), complex})


class _Over(Exception):
    pass


def nested_cost(value: object, limit: int, *, text: bool = False) -> int:
    """Upper bound of the elements a comparison, hash or sort of `value` visits (`text=False`), or of
    the characters its str()/repr() has (`text=True`), counting shared sub-lists once per reference as
    Python does (`[[a] * 1000] * 1000` is 10⁶).  Stops and returns `limit + 1` once beyond `limit`;
    the walk itself visits each distinct container once."""
    memo: dict[int, int] = {}
    budget = [limit]

    def cost(item: object, depth: int) -> int:
        kind = type(item)
        if kind in _FLAT:
            return _scalar_text(item) if text else 1
        if kind is str:
            return len(item) + 2 + item.count("\\") + item.count("'") if text else 1 + len(item) // 64
        if isinstance(item, _CONTAINERS):
            key = id(item)
            found = memo.get(key)
            if found is not None:
                return found
            if depth > 200:  # Python's own recursion limit stops deeper structures
                return 1
            memo[key] = 1  # a cycle prints as [...] and compares until RecursionError
            if isinstance(item, _VIEWS):  # `a.items() == b.items()` compares the values too
                item = item.mapping
            elements = [*item.keys(), *item.values()] if isinstance(item, (dict, types.MappingProxyType)) else item
            kinds = set(map(type, elements))
            if kinds <= _FLAT and not (text and int in kinds or text and complex in kinds):
                total = len(elements) * (27 if text else 1) + 2
            else:
                total = 2
                for element in elements:
                    total += cost(element, depth + 1) + (2 if text else 0)
                    if total > budget[0]:
                        raise _Over
            memo[key] = total
            return total
        if isinstance(item, slice) or text and isinstance(item, BaseException):  # their text shows what they hold
            parts = item.args if isinstance(item, BaseException) else (item.start, item.stop, item.step)
            return cost(parts, depth + 1) + len(type(item).__name__) + 2
        if text and isinstance(item, (Module, Optimizer)):  # their reprs show what the snippet put in them
            total = (module_text(item, lambda v: cost(v, depth + 1), {}, budget[0])[0] if isinstance(item, Module)
                     else cost(item.param_groups, depth + 1) + 20)
            if total > budget[0]:
                raise _Over
            return total
        return _leaf_cost(item, text)

    try:
        return cost(value, 0)
    except _Over:
        return limit + 1


def module_text(module: Module, value_text: Callable[[object], int], memo: dict, limit: int,
                depth: int = 0) -> tuple[int, int]:
    """(an upper bound of the characters, the lines) of repr(module). PyTorch's layout shows a shared module under
    each parent, so the text grows with the paths through the tree (exponentially with `s = Sequential(s, s)`);
    each distinct module's numbers are worked out once. A snippet class's `extra_repr()` is called here, once per
    module; the engine's own show the module's attributes (`in_features=2`), estimated by `value_text`. Stops
    counting once beyond `limit`."""
    found = memo.get(id(module))
    if found is not None:
        return found
    memo[id(module)] = (1, 1)  # a cycle: the repr itself stops with RecursionError
    if depth > 200:
        return 1, 1  # Python's recursion limit stops the repr of deeper trees first
    owner = next(k for k in type(module).__mro__ if "extra_repr" in vars(k))
    if is_engine_type(owner):
        extra_chars = sum(value_text(v) + 20 for k, v in vars(module).items() if not k.startswith("_"))
        extra_lines = 1
    else:
        extra = module.extra_repr()
        if not isinstance(extra, str):
            extra = ""  # PyTorch's repr fails on it (str.split)
        extra_chars, extra_lines = len(extra), extra.count("\n") + 1
    chars, lines = len(type(module).__name__) + 6 + extra_chars + 2 * extra_lines, extra_lines + 2
    for name, child in module._modules.items():
        child_chars, child_lines = (module_text(child, value_text, memo, limit, depth + 1)
                                    if isinstance(child, Module) else (value_text(child), 1))
        chars += len(str(name)) + 7 + child_chars + 2 * child_lines
        lines += child_lines
        if chars > limit:
            break
    memo[id(module)] = (chars, lines)
    return chars, lines


def _scalar_text(value: object) -> int:
    if type(value) is int:
        return value.bit_length() * 10 // 33 + 3
    return 25


def _leaf_cost(value: object, text: bool) -> int:
    """Tensors and arrays: their elements (comparing), the characters of their repr (printing)."""
    shape = shape_of(value)
    if shape is None:
        return 100 if text else 1  # reprs of functions, dtypes, graph nodes: short
    count = math.prod(shape)
    if not text:
        return count
    if isinstance(value, (np.ndarray, np.generic)):
        shown, width = (count if count <= 1000 else min(count, 6 ** max(1, len(shape)))), 30
    else:
        from engine.printing import get_printoptions  # the engine's own summarisation rule

        options = get_printoptions()
        edge = 2 * options["edgeitems"]
        shown = count if count <= options["threshold"] else min(count, math.prod(min(d, edge) for d in shape))
        width = options["precision"] + 12
    return shown * width + 20 * len(shape) + 60
