"""Reading a learner's typed or pasted answer.

A learner may answer in whatever form they have at hand: a nested list `[[4, 2], [2, 4]]`, a
PyTorch printout pasted from a notebook `tensor([[1.1667, ...]], requires_grad=True)`, numpy's
(`[[2. 4.] [6. 8.]]`, `array([[2., 4.], [6., 8.]])`), fractions
`7/6`, `True`/`False`/`None`, or a formula of the snippet's variables (`x**2/2`, `tensor2/6`).
Literals are read by walking the syntax tree (never `eval`); formulas are handed to the snippet
runner's `RunResult.evaluate`, so they run under the same allow-list as lesson code.

An answer that cannot be read raises `AnswerFormatError`, whose `key`/`params` name the problem
for `tutor.i18n`; the app shows it under the field and does not count it as an attempt. The parsed
value is then judged by `lessons.answers.compare`, the same cell-by-cell check the validator uses.
"""
from __future__ import annotations

import ast
import builtins
import math
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

# answer kinds, as `lessons.answers.Answer.kind` names them
NUMERIC_KINDS = ("tensor", "number")

# attribute names a formula may not touch: they would read the answer itself or change state
_FORBIDDEN_ATTRIBUTES = frozenset(
    {"grad", "backward", "retain_grad", "register_hook", "autograd", "jacobian", "vjp", "hessian"}
)
_PRINTOUT = re.compile(r"^\s*(?:tensor|array)\s*\((?P<body>.*)\)\s*$", re.DOTALL)  # PyTorch's, numpy's repr
# numpy's print of an array, `[[2. 4.] [6. 8.]]`: numbers and brackets only, apart by spaces (each space between
# two becomes a comma; a formula, `[a - b]`, is never read so)
_NUMBER = r"[-+]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?|[-+]?(?:nan|inf)"  # one way to match each number
# a number must end at a space, a bracket or the end: adjacent numbers would let the digits of one long number
# be split every possible way, and a text that fails to match (a comma) then takes exponential time
_NUMPY_PRINT = re.compile(rf"\s*\[[\s\[\]]*(?:(?:{_NUMBER})(?=[\s\[\]]|$)[\s\[\]]*)*", re.IGNORECASE)
_SPACED = re.compile(r"(?<=[\w.\]])\s+(?=[-+\w.\[])")
# numpy's print of a bool array, `[ True False]`, read as numpy's numbers are (its spaces become commas)
_NUMPY_BOOLS = re.compile(r"\s*\[[\s\[\]]*(?:(?:true|false)(?=[\s\[\]]|$)[\s\[\]]*)*", re.IGNORECASE)
_BOOL_WORD = re.compile(r"\b(true|false)\b", re.IGNORECASE)
_BARE_BOOLS = re.compile(r"\s*(?:true|false)(?:\s+(?:true|false))+\s*", re.IGNORECASE)  # `False True`: numpy's, unbracketed
# numbers apart by spaces with no bracket (`1 2`): several numbers, which a list holds
_BARE_NUMBERS = re.compile(rf"\s*(?:{_NUMBER})(?:\s+(?:{_NUMBER}))+\s*", re.IGNORECASE)
_NOT_NUMBER_WORDS = ("true", "false", "null")  # a numeric answer's common slips, in any case (None is a prediction)
_PARAMETER = re.compile(r"^\s*Parameter containing:\s*")  # how PyTorch prints an nn.Parameter
_SPECIAL_NAMES = {"inf": math.inf, "nan": math.nan}
MAX_LENGTH = 20_000  # characters; a longer answer is refused before it is parsed
# What NFKC leaves alone but a learner means as ASCII: the minus sign and the dashes a Japanese input method gives for
# it (‐, ―; ー below), ×, ÷, the ideographic comma, the lenticular and tortoise-shell brackets (【4, 2】); and the invisible
# zero-width spaces, joiners and byte-order mark a copy from a web page brings (else "cannot be read near" a blank).
_ASCII = str.maketrans({"\u2212": "-", "\u00d7": "*", "\u00f7": "/", "\u3001": ",", "\u2013": "-",
                        **dict.fromkeys(["\u2010", "\u2011", "\u2012", "\u2015"], "-"),
                        "\u3010": "[", "\u3011": "]", "\u3014": "[", "\u3015": "]",
                        "\u2044": "/",  # the fraction slash NFKC makes of ½
                        **dict.fromkeys(["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"])})
_CLOSING = {"(": ")", "[": "]", "{": "}"}


# The long-vowel mark ー typed for a minus (`ー2`): one that follows no kana or kanji (`データ` keeps its own)
_MINUS_MARK = re.compile("(?<![\u3040-\u30ff\u4e00-\u9fff])\u30fc")


def normalise(text: str) -> str:
    """Full-width digits, brackets and slashes (`７／６`) as ASCII (NFKC), and the usual look-alikes."""
    return _MINUS_MARK.sub("-", unicodedata.normalize("NFKC", text).translate(_ASCII))


# A Python or IPython session copied with its output: the input lines (`>>> x.grad`, `In [3]: x.grad`, a bare `>>>`),
# and IPython's `Out[3]:` before the output
_SESSION_INPUT = re.compile(r"^[ \t]*(?:>>>|In \[\d*\]:)(?:[ \t].*)?$", re.MULTILINE)
_SESSION_OUTPUT = re.compile(r"^[ \t]*Out\[\d*\]:[ \t]*", re.MULTILINE)


def one_line(text: str) -> str:
    """A pasted printout as one line: PyTorch prints a 2-D tensor over several lines, and an answer field
    holds one; the escape sequences a terminal copy brings along are gone (`tutor.untrusted.typed`). Rows of
    bare numbers, one per line (`4 2` / `2 4`, as a table is copied), keep their rows as numpy's print
    `[[4 2] [2 4]]`: joined by spaces, they would be one long vector. A printout copied with the session around it
    keeps only the output: the `>>> x.grad` or `In [3]: x.grad` line before it goes, and `Out[3]:` before it."""
    from tutor.untrusted import typed

    text = _SESSION_OUTPUT.sub("", _SESSION_INPUT.sub("", typed(text)))
    rows = [row.split() for row in text.split("\n") if row.strip()]
    if len(rows) > 1 and len({len(row) for row in rows}) == 1 and len(rows[0]) > 1 \
            and all(_BARE_NUMBERS.fullmatch(" ".join(row)) for row in rows):
        return "[" + " ".join("[" + " ".join(row) + "]" for row in rows) + "]"
    return " ".join(text.split())


def _check_text(text: str) -> None:
    """Problems worth their own message, found before Python's parser gives a vaguer one."""
    if len(text) > MAX_LENGTH:
        raise AnswerFormatError("answer_too_long", limit=MAX_LENGTH)
    if "^" in text:
        raise AnswerFormatError("answer_caret")
    stack: list[tuple[str, int]] = []
    for column, char in enumerate(text, start=1):
        if char in _CLOSING:
            stack.append((char, column))
        elif char in _CLOSING.values():
            if not stack or _CLOSING[stack[-1][0]] != char:
                raise AnswerFormatError("answer_unmatched", bracket=char, column=column)
            stack.pop()
    if stack:
        char, column = stack[-1]
        raise AnswerFormatError("answer_unclosed", bracket=char, closing=_CLOSING[char], column=column)


class AnswerFormatError(ValueError):
    """An answer that cannot be read; `key` and `params` are the message for `tutor.i18n.t`. `typed_shape`: the
    shape a tensor was typed in, when that shape is what is wrong (the diagnosis still compares it)."""

    def __init__(self, key: str, *, typed_shape: tuple[int, ...] | None = None, **params: Any) -> None:
        from tutor.i18n import t

        self.key = key
        self.params = params
        self.typed_shape = typed_shape
        super().__init__(t(key, "en", **params))

    def message(self, lang: str) -> str:
        from tutor.i18n import t

        return t(self.key, lang, **self.params)


class _NotLiteral(Exception):
    """The text is valid Python but not a literal: it may be a formula."""


def _literal(node: ast.AST) -> Any:
    """A number, bool, None or nested list from a literal syntax tree, with arithmetic on numbers."""
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (bool, int, float))):
        if isinstance(node.value, int) and not isinstance(node.value, bool) and abs(node.value) > 2**1023:
            raise AnswerFormatError("answer_too_large")
        if isinstance(node.value, float) and math.isinf(node.value):
            raise AnswerFormatError("answer_too_large")
        return node.value
    if isinstance(node, ast.Name) and node.id.lower() in _SPECIAL_NAMES:  # numpy's `nan`, a learner's `NaN`, `Inf`
        return _SPECIAL_NAMES[node.id.lower()]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(element) for element in node.elts]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _number(_literal(node.operand))
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)):
        left, right = _number(_literal(node.left)), _number(_literal(node.right))
        try:
            if isinstance(node.op, ast.Add):
                return left + right
            if isinstance(node.op, ast.Sub):
                return left - right
            if isinstance(node.op, ast.Mult):
                return left * right
            if isinstance(node.op, ast.Div):
                return left / right
            if abs(right) > 64:
                raise AnswerFormatError("answer_too_large")
            return left**right
        except ZeroDivisionError:
            raise AnswerFormatError("answer_division_by_zero") from None
        except OverflowError:
            raise AnswerFormatError("answer_too_large") from None
    if isinstance(node, ast.Constant) and isinstance(node.value, complex):
        raise AnswerFormatError("answer_not_numbers")
    raise _NotLiteral


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _NotLiteral
    return value


def _parse_python(text: str) -> ast.expr:
    _check_text(text)
    try:
        return ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        if "digits" in str(exc.msg):  # an integer literal longer than Python converts (4300 digits)
            raise AnswerFormatError("answer_too_large") from None
        raise AnswerFormatError("answer_syntax", column=exc.offset or 1) from None
    except ValueError as exc:  # Python refuses int literals of more than 4300 digits
        if "digits" in str(exc):
            raise AnswerFormatError("answer_too_large") from None
        raise AnswerFormatError("answer_unreadable") from None
    except (RecursionError, MemoryError):
        raise AnswerFormatError("answer_unreadable") from None


def _printout_body(text: str) -> str | None:
    """The data part of a pasted `tensor(...)` printout, without `requires_grad=`, `grad_fn=`…."""
    match = _PRINTOUT.match(text)
    if match is None:
        return None
    body = match.group("body")
    depth = 0
    for index, char in enumerate(body):
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
        elif char == "," and depth == 0:
            return body[:index]
    return body


def _shape_of(value: Any, bools: bool = False) -> tuple[int, ...]:
    """The shape of a nested list of numbers (`bools`: of True/False values), or raise when rows differ or an
    element is of another kind."""
    if not isinstance(value, list):
        if bools and not isinstance(value, bool):
            raise AnswerFormatError("answer_not_bools")
        if not bools and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise AnswerFormatError("answer_not_numbers")
        return ()
    if not value:
        return (0,)
    shapes = {_shape_of(element, bools) for element in value}
    if len(shapes) != 1:
        raise AnswerFormatError("answer_ragged")
    return (len(value), *shapes.pop())


def _to_array(value: Any):
    """A float64 numpy array from a nested list, number, engine tensor or numpy value."""
    import numpy as np

    if hasattr(value, "detach") and hasattr(value, "numpy"):
        value = value.detach().numpy()
    elif hasattr(value, "tolist") and not isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, list):
        _shape_of(value)
    try:
        array = np.asarray(value, dtype=np.float64)
    except OverflowError:
        raise AnswerFormatError("answer_too_large") from None
    except (TypeError, ValueError):
        raise AnswerFormatError("answer_not_numbers") from None
    return array


def _missing_comma(tree: ast.expr) -> bool:
    """Whether a literal is followed by brackets, as `[1, 2][3, 4]` or `(1, 2)(3, 4)`: Python reads that as indexing
    or calling the literal, which no formula means; a learner meant a comma between the rows."""
    literals = (ast.List, ast.Tuple, ast.Constant)
    return any(isinstance(node, ast.Subscript) and isinstance(node.value, literals)
               or isinstance(node, ast.Call) and isinstance(node.func, literals) for node in ast.walk(tree))


def _check_formula(tree: ast.expr) -> None:
    """Refuse formulas that would read the gradient they are meant to predict."""
    for node in ast.walk(tree):
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
        if name is None:
            continue
        if name in _FORBIDDEN_ATTRIBUTES or (isinstance(node, ast.Attribute) and name.endswith("_")):
            raise AnswerFormatError("answer_formula_forbidden", name=_abridged(name))


def defined_names(source: str) -> list[str]:
    """The names a program binds at any level (assignments, imports, loops, functions), sorted."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
    return sorted(name for name in names if not name.startswith("_"))


def _unknown_name(tree: ast.expr, names: Iterable[str]) -> str | None:
    known = set(names) | set(dir(builtins)) | set(_SPECIAL_NAMES)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in known:
            return node.id
    return None


def _evaluate_formula(text: str, tree: ast.expr, evaluate: Callable[[str], Any] | None,
                      names: Iterable[str] | None = None) -> Any:
    if evaluate is None:
        raise AnswerFormatError("answer_unreadable")
    _check_formula(tree)
    if names is not None:
        names = list(names)
        unknown = _unknown_name(tree, names)
        if unknown is not None:
            raise AnswerFormatError("answer_unknown_name", name=_abridged(unknown), names=", ".join(names) or "-")
    try:
        return evaluate(text.strip())
    except Exception as exc:  # the runner reports a snippet's fault as an exception carrying `.error`
        error = getattr(exc, "error", None)
        if error is not None and error.type == "NameError":
            match = re.search(r"name '([^']+)'", error.message)
            if match is not None and names is not None:
                raise AnswerFormatError("answer_unknown_name", name=_abridged(match.group(1)),
                                          names=", ".join(names) or "-") from None
        detail = f"{error.type}: {error.message}" if error is not None else f"{type(exc).__name__}: {exc}"
        raise AnswerFormatError("answer_formula_failed", detail=_abridged(detail, 200)) from None


def _abridged(text: str, limit: int = 40) -> str:
    """A typed name or a formula's error as a message quotes it: a pasted 15,000-letter word is not repeated whole."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _format_shape(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


@dataclass(frozen=True)
class Reading:
    """A typed answer: its value, and for numbers the precision each was typed with.

    `half_unit` is half a unit of the last typed digit (0.00005 for `0.1667`, 0.5e-9 for
    `1.0000e-05`), 0 where the number is exact (an integer, a fraction, a formula); `decimals` is the
    number of decimals typed (of the mantissa), -1 where exact. Both have the value's shape.
    """

    value: Any
    half_unit: Any = None
    decimals: Any = None


def _typed_precision(tree: ast.AST, source: str) -> Any:
    """(half unit, decimals) per number of a literal, nested like `_literal`'s value. `source` is one line (as
    `read_answer` makes it): each number's text is sliced from its UTF-8 bytes, which the offsets count, at once
    (`ast.get_source_segment` splits the whole source again for every number: seconds for a pasted 1000 numbers)."""
    encoded = source.encode()

    def precision(node: ast.AST) -> Any:
        if isinstance(node, (ast.List, ast.Tuple)):
            return [precision(element) for element in node.elts]
        if isinstance(node, ast.UnaryOp):
            return precision(node.operand)
        if isinstance(node, ast.Constant) and isinstance(node.value, float):
            written = encoded[node.col_offset:node.end_col_offset].decode().lower().replace("_", "")
            return _written_precision(written)
        return (0.0, -1)

    return precision(tree)


def _written_precision(written: str) -> tuple[float, int]:
    """(half unit, decimals) of one number as written (`0.1667`, `1.0000e-05`)."""
    mantissa, _, exponent = written.partition("e")
    if "." not in mantissa:
        return (0.0, -1)
    decimals = len(mantissa.split(".", 1)[1])
    try:
        power = int(exponent) if exponent else 0
    except ValueError:
        return (0.0, -1)
    if abs(power) > 300:
        return (0.0, -1)
    return (0.5 * 10.0 ** (power - decimals), decimals)


def _precision_arrays(precision: Any, shape: tuple[int, ...]):
    import numpy as np

    def split(item, index):
        return [split(element, index) for element in item] if isinstance(item, list) else item[index]

    try:
        half = np.broadcast_to(np.asarray(split(precision, 0), dtype=np.float64), shape)
        decimals = np.broadcast_to(np.asarray(split(precision, 1), dtype=np.int64), shape)
    except ValueError:
        return None, None
    return half, decimals


def read_answer(
    text: str,
    kind: str,
    shape: tuple[int, ...] | None = None,
    evaluate: Callable[[str], Any] | None = None,
    names: Iterable[str] | None = None,
    bools: bool = False,
) -> Reading:
    """Read `text` as an answer of `kind` ("tensor", "number", "bool", "none", "text").

    Tensor answers come back as float64 arrays of exactly `shape` — or, with `bools` (the answer is
    True/False values: a bool tensor such as `x > 0`, a tuple such as `(x.requires_grad, y.is_leaf)`), as
    bool arrays, numbers being refused; numbers as floats; bools as
    bools. None is a prediction for any numeric or "none" question (wrong where the answer is numbers), as a
    tensor is for a "none" question.
    `evaluate` (a `SandboxRun.evaluate`) turns formulas of the snippet's variables into values;
    `names`, the names the snippet defines, makes an unknown name in a formula a clear message.
    Anything that cannot be read raises `AnswerFormatError`, and nothing else.
    """
    if len(text) > 4 * MAX_LENGTH:  # before any work on it: a printout's indentation is allowed for, no more
        raise AnswerFormatError("answer_too_long", limit=MAX_LENGTH)
    text = _PARAMETER.sub("", one_line(normalise(text)), count=1)
    if not text:
        raise AnswerFormatError("answer_empty")
    if len(text) > MAX_LENGTH:
        raise AnswerFormatError("answer_too_long", limit=MAX_LENGTH)
    if kind == "text":
        return Reading(text.strip("'\"<> "))
    if kind == "bool":
        body = _printout_body(text)  # `tensor(True)`, as a 0-d bool tensor prints
        lowered = (body if body is not None else text).strip().lower()
        if lowered in ("true", "false"):
            return Reading(lowered == "true")
        raise AnswerFormatError("answer_expected_bool")
    if kind in ("none", *NUMERIC_KINDS) and text.strip().lower() == "none":  # a prediction, graded (wrong for numbers)
        return Reading(None)
    if kind in NUMERIC_KINDS and not bools and text.strip().lower() in _NOT_NUMBER_WORDS \
            and text.strip() not in (names or ()):
        raise AnswerFormatError("answer_expected_numbers")
    if _BARE_NUMBERS.fullmatch(text):  # `4 2`: a vector, as numpy's `[4 2]` is (never a number's answer)
        if kind != "tensor":
            raise AnswerFormatError("answer_needs_brackets")
        text = f"[{text.strip()}]"

    if "..." in text or "…" in text:
        raise AnswerFormatError("answer_abbreviated")
    if _NUMPY_PRINT.fullmatch(text):
        text = _SPACED.sub(", ", text)
    if bools and kind == "tensor":
        return Reading(_read_bools(text, tuple(shape or ()), evaluate, names))
    body = _printout_body(text)
    source = (body if body is not None else text).strip()
    tree = _parse_python(source)
    precision: Any = (0.0, -1)
    try:
        value = _literal(tree)
        precision = _typed_precision(tree, source)
    except _NotLiteral:
        if body is not None or kind not in NUMERIC_KINDS:
            raise AnswerFormatError("answer_unreadable") from None
        if _missing_comma(tree):
            raise AnswerFormatError("answer_missing_comma") from None
        value = _evaluate_formula(source, tree, evaluate, names)

    if kind == "none":
        return Reading(None if value is None else _to_array(value))
    if value is None:  # `(None)`: as `None`
        return Reading(None)
    if isinstance(value, bool):
        raise AnswerFormatError("answer_expected_numbers")
    array = _to_array(value)
    expected = () if kind == "number" else tuple(shape or ())
    if array.ndim == 0 and math.prod(expected) == 1:  # `3` for `tensor([[3.]])`: one number is all it holds
        array = array.reshape(expected)
    if array.shape != expected:
        if kind == "number":
            raise AnswerFormatError("answer_expected_number", got=_format_shape(array.shape))
        transposed = len(expected) == 2 and array.shape == expected[::-1]
        raise AnswerFormatError(
            "answer_transposed" if transposed else "answer_wrong_shape", expected=_format_shape(expected),
            got=_format_shape(array.shape), typed_shape=array.shape
        )
    half, decimals = _precision_arrays(precision, array.shape)
    return Reading(float(array) if kind == "number" else array, half, decimals)


def _read_bools(text: str, shape: tuple[int, ...], evaluate, names):
    """A bool array of `shape` from `(True, False)`, `[true, false]`, `tensor([ True, False])`, numpy's
    `[ True False]` or a formula (`x > 0`); numbers (`1`, `[1., 0.]`) are refused with a message saying the
    answer is True/False values, as is a formula giving numbers."""
    import numpy as np

    if _BARE_BOOLS.fullmatch(text):
        text = f"[{text.strip()}]"
    if _NUMPY_BOOLS.fullmatch(text):
        text = _SPACED.sub(", ", text)
    body = _printout_body(text)
    source = _BOOL_WORD.sub(lambda word: word.group(1).capitalize(), body if body is not None else text).strip()
    tree = _parse_python(source)
    try:
        value = _literal(tree)
    except _NotLiteral:
        if body is not None:
            raise AnswerFormatError("answer_unreadable") from None
        value = _evaluate_formula(source, tree, evaluate, names)
        if hasattr(value, "detach") and hasattr(value, "numpy"):
            value = value.detach().numpy()
    if isinstance(value, np.ndarray):  # a formula's value
        if value.dtype.kind != "b":
            raise AnswerFormatError("answer_not_bools")
        array = value
    else:
        _shape_of(value, bools=True)
        array = np.asarray(value, dtype=bool)
    if array.shape != shape:
        raise AnswerFormatError("answer_wrong_shape", expected=_format_shape(shape), got=_format_shape(array.shape),
                                typed_shape=array.shape)
    return array


def parse_answer(
    text: str,
    kind: str,
    shape: tuple[int, ...] | None = None,
    evaluate: Callable[[str], Any] | None = None,
    names: Iterable[str] | None = None,
) -> Any:
    """The value of `read_answer` (see there)."""
    return read_answer(text, kind, shape, evaluate, names).value


def read_cell(text: str) -> tuple[float, float, int]:
    """One grid cell: a number, fraction or arithmetic of numbers (`7/6`, `-1/3`, `2*3`), with the
    half unit and decimals it was typed with (see `Reading`)."""
    text = normalise(one_line(text))
    if not text:
        raise AnswerFormatError("answer_empty_cell")
    try:
        tree = _parse_python(text)
        value = float(_number(_literal(tree)))
    except _NotLiteral:
        raise AnswerFormatError("answer_cell_not_number", text=text[:20]) from None
    except OverflowError:
        raise AnswerFormatError("answer_too_large") from None
    if math.isinf(value) and "inf" not in text:
        raise AnswerFormatError("answer_too_large")
    half, decimals = _typed_precision(tree, text)
    return value, half, decimals


def parse_cell(text: str) -> float:
    """The number in one grid cell (see `read_cell`)."""
    return read_cell(text)[0]
