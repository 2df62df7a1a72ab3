"""Reading a learner's typed or pasted answer.

A learner may answer in whatever form they have at hand: a nested list `[[4, 2], [2, 4]]`, a
PyTorch printout pasted from a notebook `tensor([[1.1667, ...]], requires_grad=True)`, fractions
`7/6`, `True`/`False`/`None`, or a formula of the snippet's variables (`x**2/2`, `tensor2/6`).
Literals are read by walking the syntax tree (never `eval`); formulas are handed to the snippet
runner's `RunResult.evaluate`, so they run under the same allow-list as lesson code.

An answer that cannot be read raises `AnswerFormatError`, whose `key`/`params` name the problem
for `tutor.i18n`; the app shows it under the field and does not count it as an attempt. The parsed
value is then judged by `lessons.answers.compare`, the same cell-by-cell check the validator uses.
"""
from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable
from typing import Any

# answer kinds, as `lessons.answers.Answer.kind` names them
NUMERIC_KINDS = ("tensor", "number")

# attribute names a formula may not touch: they would read the answer itself or change state
_FORBIDDEN_ATTRIBUTES = frozenset(
    {"grad", "backward", "retain_grad", "register_hook", "autograd", "jacobian", "vjp", "hessian"}
)
_PRINTOUT = re.compile(r"^\s*tensor\s*\((?P<body>.*)\)\s*$", re.DOTALL)
_SPECIAL_NAMES = {"inf": math.inf, "nan": math.nan}


class AnswerFormatError(ValueError):
    """An answer that cannot be read; `key` and `params` are the message for `tutor.i18n.t`."""

    def __init__(self, key: str, **params: Any) -> None:
        from tutor.i18n import t

        self.key = key
        self.params = params
        super().__init__(t(key, "en", **params))

    def message(self, lang: str) -> str:
        from tutor.i18n import t

        return t(self.key, lang, **self.params)


class _NotLiteral(Exception):
    """The text is valid Python but not a literal: it may be a formula."""


def _literal(node: ast.AST) -> Any:
    """A number, bool, None or nested list from a literal syntax tree, with arithmetic on numbers."""
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (bool, int, float))):
        return node.value
    if isinstance(node, ast.Name) and node.id in _SPECIAL_NAMES:
        return _SPECIAL_NAMES[node.id]
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
    raise _NotLiteral


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _NotLiteral
    return value


def _parse_python(text: str) -> ast.expr:
    try:
        return ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise AnswerFormatError("answer_syntax", column=exc.offset or 1) from None
    except (ValueError, RecursionError, MemoryError):
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


def _shape_of(value: Any) -> tuple[int, ...]:
    """The shape of a nested list of numbers, or raise when rows differ or an element is no number."""
    if not isinstance(value, list):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise AnswerFormatError("answer_not_numbers")
        return ()
    if not value:
        return (0,)
    shapes = {_shape_of(element) for element in value}
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
    except (TypeError, ValueError):
        raise AnswerFormatError("answer_not_numbers") from None
    return array


def _check_formula(tree: ast.expr) -> None:
    """Refuse formulas that would read the gradient they are meant to predict."""
    for node in ast.walk(tree):
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
        if name is None:
            continue
        if name in _FORBIDDEN_ATTRIBUTES or (isinstance(node, ast.Attribute) and name.endswith("_")):
            raise AnswerFormatError("answer_formula_forbidden", name=name)


def _evaluate_formula(text: str, tree: ast.expr, evaluate: Callable[[str], Any] | None) -> Any:
    if evaluate is None:
        raise AnswerFormatError("answer_unreadable")
    _check_formula(tree)
    try:
        return evaluate(text.strip())
    except Exception as exc:  # the runner reports a snippet's fault as an exception carrying `.error`
        error = getattr(exc, "error", None)
        detail = f"{error.type}: {error.message}" if error is not None else f"{type(exc).__name__}: {exc}"
        raise AnswerFormatError("answer_formula_failed", detail=detail) from None


def _format_shape(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def parse_answer(
    text: str,
    kind: str,
    shape: tuple[int, ...] | None = None,
    evaluate: Callable[[str], Any] | None = None,
) -> Any:
    """Read `text` as an answer of `kind` ("tensor", "number", "bool", "none", "text").

    Tensor answers come back as float64 arrays of exactly `shape`; numbers as floats; bools as
    bools. For a "none" question the learner may answer None or a tensor (which is then wrong).
    `evaluate` (a `RunResult.evaluate`) turns formulas of the snippet's variables into values.
    """
    text = text.strip()
    if not text:
        raise AnswerFormatError("answer_empty")
    if kind == "text":
        return text.strip("'\"<> ")
    if kind == "bool":
        lowered = text.lower()
        if lowered in ("true", "false"):
            return lowered == "true"
        raise AnswerFormatError("answer_expected_bool")

    if "..." in text or "…" in text:
        raise AnswerFormatError("answer_abbreviated")
    body = _printout_body(text)
    source = body if body is not None else text
    tree = _parse_python(source)
    try:
        value = _literal(tree)
    except _NotLiteral:
        if body is not None or kind not in NUMERIC_KINDS:
            raise AnswerFormatError("answer_unreadable") from None
        value = _evaluate_formula(source, tree, evaluate)

    if kind == "none":
        return None if value is None else _to_array(value)
    if value is None or isinstance(value, bool):
        raise AnswerFormatError("answer_expected_numbers")
    array = _to_array(value)
    expected = () if kind == "number" else tuple(shape or ())
    if array.shape != expected:
        if kind == "number":
            raise AnswerFormatError("answer_expected_number", got=_format_shape(array.shape))
        raise AnswerFormatError(
            "answer_wrong_shape", expected=_format_shape(expected), got=_format_shape(array.shape)
        )
    return float(array) if kind == "number" else array


def parse_cell(text: str) -> float:
    """One grid cell: a number, fraction or arithmetic of numbers (`7/6`, `-1/3`, `2*3`)."""
    text = text.strip()
    if not text:
        raise AnswerFormatError("answer_empty_cell")
    try:
        return float(_number(_literal(_parse_python(text))))
    except _NotLiteral:
        raise AnswerFormatError("answer_cell_not_number", text=text) from None
