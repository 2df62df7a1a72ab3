"""The text guard: `print`, f-string fields and `str.format`, each sized before the text is built (a snippet's
output is bounded), with engine classes shown as PyTorch shows them.
"""
from __future__ import annotations

import string
from typing import TYPE_CHECKING

from .errors import SnippetRejected, reason
from .surface import type_text

if TYPE_CHECKING:
    from .guards import Guards


class TextGuard:
    """The text output of one execution (a part of `guards.Guards`)."""

    def fmt(self, value: object, conversion: int, spec: str) -> str:
        if type_text(value) is not None:  # str, repr and ascii of a class are the same text
            value, conversion = type_text(value), -1
        self.budget.text(value, ("what_this", {"thing": "f-string field"}))
        if conversion != -1:
            value = {ord("s"): str, ord("r"): repr, ord("a"): ascii}[conversion](value)
        self.budget.format_spec_text(spec)
        return self._after(format(value, spec))

    # --- decorators, unpacking, exceptions -------------------------------------------------------
    def print(self, *values: object, sep: str | None = " ", end: str | None = "\n", file: object = None,
              flush: bool = False) -> None:
        if file is not None:
            raise SnippetRejected(reason("print_file_unavailable"))
        if not isinstance(sep, (str, type(None))) or not isinstance(end, (str, type(None))):
            raise TypeError("sep and end must be None or a string")
        self.budget.text(values, ("what_this", {"thing": "print()"}))
        text = (" " if sep is None else sep).join(str(_shown(v)) for v in values) + ("\n" if end is None else end)
        self.budget.printed(len(text))
        self.output.append(text)

    # --- checks ----------------------------------------------------------------------------------


class _SnippetFormatter(string.Formatter):
    """`"{} {:.3f} {x}".format(...)`: Python's str.format for plain fields; `{0.attr}` and `{0[i]}` walk into
    objects and are refused; every format spec (also a nested `{:{w}}`) is sized before it is applied."""

    def __init__(self, guards: Guards) -> None:
        self.guards = guards
        self.length = 0  # characters formatted so far: `("{:9999}" * 10**5).format(...)` stops early

    def get_field(self, field_name: str, args: object, kwargs: object) -> tuple[object, object]:
        if "." in field_name or "[" in field_name:
            raise SnippetRejected(reason("format_lookup_refused", field=f"{{{field_name}}}"))
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
            self.guards.budget.text(value, ("what_this", {"thing": "str.format field"}))
        return super().convert_field(value, conversion)

    def format_field(self, value: object, format_spec: str) -> str:
        self.guards.budget.format_spec_text(format_spec)
        self.guards.budget.text(value, ("what_this", {"thing": "str.format field"}))  # judged before format() builds it
        text = format(_shown(value), format_spec)
        self.length += len(text)
        self.guards.budget.items(self.length, ("what_result_of", {"op": "str.format"}))
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


def _function_str(fn: object, snippet_print: object) -> str:
    """How Python names a function in its call errors (`print()`, `list.append()`, `__main__.f()`)."""
    if fn == snippet_print:
        return "print()"
    qualname = getattr(fn, "__qualname__", None)
    if not isinstance(qualname, str):
        return str(fn)
    module = getattr(fn, "__module__", None)
    return f"{module}.{qualname}()" if isinstance(module, str) and module != "builtins" else f"{qualname}()"


def _shown(value: object) -> object:
    """An engine class as PyTorch prints it (`<class 'torch.Tensor'>`); any other value as it is."""
    text = type_text(value)
    return value if text is None else text
