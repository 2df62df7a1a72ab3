"""Rich renderables as plain data, so explanations made in the confined child cross the pipe as JSON.

The explanation layer builds its panels from five rich types (Text, Table, Panel, Group, Tree); the
child turns them into nested dicts of strings and numbers (`to_data`), the parent rebuilds them
(`from_data`). The parent still lays them out at whatever width its terminal has. Nothing from the
child is ever evaluated: styles are parsed by rich's style grammar (a terminal hyperlink is refused),
boxes looked up by name, and any other shape of data is refused with `ValueError`. The child's text is
the program's (exception messages, `extra_repr`, source lines), so every string is passed through the
caller's `clean` (the app's terminal boundary, `tutor.untrusted.plain`) and becomes a `Text`: none is
ever read as markup.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from rich import box as boxes
from rich.console import Group
from rich.errors import StyleSyntaxError
from rich.panel import Panel
from rich.style import Style
from rich.table import Table
from rich.text import Span, Text
from rich.tree import Tree

_BOXES = {name: getattr(boxes, name) for name in ("ASCII", "ROUNDED", "SQUARE", "SIMPLE", "HEAVY", "DOUBLE",
                                                  "MINIMAL", "HORIZONTALS", "SIMPLE_HEAD", "HEAVY_HEAD")}
_BOX_NAMES = {id(value): name for name, value in _BOXES.items()}
_MAX_DEPTH = 64
# the usual value of each field, per kind: `to_data` leaves out what equals it and `from_data` puts it back,
# so a panel of short texts and small tables crosses the pipe (and is parsed) in half the bytes
_USUAL = {
    "text": {"style": "", "spans": [], "justify": None, "overflow": None, "no_wrap": None, "end": "\n"},
    "table": {"box": "SQUARE", "title": None, "show_header": False, "show_lines": False, "show_edge": True,
              "pad_edge": True, "expand": False, "padding": [0, 1, 0, 1], "collapse_padding": False},
    "tree": {"guide_style": "tree.line", "children": []},
    "column": {"header": "", "justify": "right", "vertical": "top", "style": "", "no_wrap": True,
               "overflow": "ellipsis"},
}


def to_data(renderable: Any, _depth: int = 0) -> Any:
    """A JSON-able form of `renderable` (raises TypeError for a type this module does not know)."""
    if _depth > _MAX_DEPTH:
        raise ValueError("renderable nested too deeply")
    d = _depth + 1
    if renderable is None:
        return None
    if isinstance(renderable, str):  # a table's cells, mostly: sent as they are
        return renderable
    if isinstance(renderable, Text):
        return _compact("text", {"t": "text", "plain": renderable.plain, "style": _style(renderable.style),
                                 "spans": [[s.start, s.end, _style(s.style)] for s in renderable.spans],
                                 "justify": renderable.justify, "overflow": renderable.overflow,
                                 "no_wrap": renderable.no_wrap, "end": renderable.end})
    if isinstance(renderable, Group):
        return {"t": "group", "fit": renderable.fit, "items": [to_data(r, d) for r in renderable.renderables]}
    if isinstance(renderable, Panel):
        return {"t": "panel", "body": to_data(renderable.renderable, d), "title": to_data(renderable.title, d),
                "box": _box(renderable.box), "expand": renderable.expand, "padding": list(renderable.padding)}
    if isinstance(renderable, Tree):
        return _compact("tree", {"t": "tree", "label": to_data(renderable.label, d),
                                 "guide_style": _style(renderable.guide_style),
                                 "children": [to_data(child, d) for child in renderable.children]})
    if isinstance(renderable, Table):
        columns = [_compact("column", {"header": to_data(c.header, d), "justify": c.justify, "vertical": c.vertical,
                                       "style": _style(c.style), "no_wrap": c.no_wrap, "overflow": c.overflow,
                                       "cells": [to_data(x, d) for x in c._cells]})
                   for c in renderable.columns]
        return _compact("table", {"t": "table", "box": _box(renderable.box), "title": to_data(renderable.title, d),
                                  "show_header": renderable.show_header, "show_lines": renderable.show_lines,
                                  "show_edge": renderable.show_edge, "pad_edge": renderable.pad_edge,
                                  "expand": renderable.expand, "padding": list(renderable.padding),
                                  "collapse_padding": renderable.collapse_padding, "columns": columns})
    raise TypeError(f"cannot send a {type(renderable).__name__} across the sandbox pipe")


def from_data(data: Any, clean: Callable[[str], str], _depth: int = 0) -> Any:
    """The renderable `to_data` described, its text passed through `clean` (which must give one character for
    each: Rich's spans point into the text); raises ValueError for anything else."""
    if _depth > _MAX_DEPTH:
        raise ValueError("renderable nested too deeply")
    d = _depth + 1
    if data is None:
        return None
    if isinstance(data, str):
        return Text(_clean(data, clean))
    if not isinstance(data, dict):
        raise ValueError("a renderable is described by a dict or a string")
    kind = data.get("t")
    data = {**_USUAL.get(kind, {}), **data}
    if kind == "text":
        plain = _clean(data["plain"], clean)
        text = Text(plain, style=_parse(data["style"]), justify=_choice(data["justify"]),
                    overflow=_choice(data["overflow"]), no_wrap=_maybe_flag(data["no_wrap"]),
                    end=_clean(data["end"], clean))
        text.spans = [_span(start, end, style, len(plain)) for start, end, style in data["spans"]]
        return text
    if kind == "group":
        return Group(*(from_data(item, clean, d) for item in data["items"]), fit=_flag(data["fit"]))
    if kind == "panel":
        return Panel(from_data(data["body"], clean, d), title=from_data(data["title"], clean, d), box=_BOXES[data["box"]],
                     expand=_flag(data["expand"]), padding=tuple(int(p) for p in data["padding"]))
    if kind == "tree":
        tree = Tree(from_data(data["label"], clean, d), guide_style=_parse(data["guide_style"]))
        tree.children = [from_data(child, clean, d) for child in data["children"]]
        if not all(isinstance(child, Tree) for child in tree.children):
            raise ValueError("a tree's children are trees")
        return tree
    if kind == "table":
        table = Table(box=_BOXES[data["box"]] if data["box"] is not None else None, title=from_data(data["title"], clean, d),
                      show_header=_flag(data["show_header"]), show_lines=_flag(data["show_lines"]),
                      show_edge=_flag(data["show_edge"]), pad_edge=_flag(data["pad_edge"]),
                      expand=_flag(data["expand"]), padding=tuple(int(p) for p in data["padding"]),
                      collapse_padding=_flag(data["collapse_padding"]))
        columns = [{**_USUAL["column"], **_dict(column)} for column in data["columns"]]
        for column in columns:
            table.add_column(from_data(column["header"], clean, d) or "", justify=_choice(column["justify"]) or "left",
                             vertical=_choice(column["vertical"]) or "top", style=_parse(column["style"]),
                             no_wrap=_maybe_flag(column["no_wrap"]),
                             overflow=_choice(column.get("overflow")) or "ellipsis")
        rows = max((len(column["cells"]) for column in columns), default=0)
        for row in range(rows):
            table.add_row(*(from_data(c["cells"][row], clean, d) if row < len(c["cells"]) else "" for c in columns))
        return table
    raise ValueError(f"unknown renderable kind {kind!r}")


class Deferred:
    """A renderable kept as the child's data until it is first drawn (Rich calls `__rich__`): a backward call's
    trace is dozens of steps, and its panels six tabs, each seen one at a time, so rebuilding them all would make
    the learner wait for what they may never open. Data that is no renderable draws as `unreadable`, never
    raises in the UI."""

    def __init__(self, data: Any, clean: Callable[[str], str], unreadable: str) -> None:
        self._data, self._clean, self._unreadable = data, clean, unreadable
        self._renderable: Any = None

    def __rich__(self) -> Any:
        if self._renderable is None:
            try:
                self._renderable = from_data(self._data, self._clean)
            except (ValueError, KeyError, TypeError, IndexError):
                self._renderable = Text(self._unreadable, style="red")
        return self._renderable


def _compact(kind: str, data: dict) -> dict:
    usual = _USUAL[kind]
    return {key: value for key, value in data.items() if key not in usual or usual[key] != value}


def _dict(value: Any) -> dict:
    if not isinstance(value, dict):
        raise ValueError("expected a dict")
    return value


def _style(style: Any) -> str:
    return str(style) if isinstance(style, Style) else (style or "")


def _box(box: Any) -> str | None:
    if box is None:
        return None
    try:
        return _BOX_NAMES[id(box)]
    except KeyError:
        raise TypeError("a table or panel uses a box style the sandbox pipe does not know") from None


def _parse(style: Any) -> Style | str:
    """A style definition ("bold red") or the name of a theme style ("tree.line", resolved by the console);
    never a terminal hyperlink (`link …`) or meta data (Textual's `@click` actions)."""
    return _parse_text(_str(style))


@functools.lru_cache(maxsize=1024)   # a panel repeats a handful of styles hundreds of times; a Style is immutable
def _parse_text(text: str) -> Style | str:
    if not text or text == "none":
        return ""
    try:
        parsed = Style.parse(text)
    except StyleSyntaxError:
        if _STYLE_NAME.fullmatch(text):
            return text
        raise ValueError(f"not a style: {text[:40]!r}") from None
    if parsed.link or parsed.meta:
        raise ValueError("a style with a link or actions")
    return parsed


_STYLE_NAME = re.compile(r"[a-z][a-z0-9_.-]{0,60}")


def _span(start: Any, end: Any, style: Any, length: int) -> Span:
    start, end = int(start), int(end)
    if not 0 <= start <= end <= length:
        raise ValueError("a span outside its text")
    return Span(start, end, _parse(style))


def _clean(value: Any, clean: Callable[[str], str]) -> str:
    cleaned = clean(_str(value))
    if len(cleaned) != len(value):
        raise ValueError("`clean` must replace each character by one")
    return cleaned


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("expected a string")
    return value


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("expected a bool")
    return value


def _maybe_flag(value: Any) -> bool | None:
    return None if value is None else _flag(value)


_CHOICES = {None, "default", "left", "center", "right", "full", "fold", "crop", "ellipsis", "ignore",
            "top", "middle", "bottom"}


def _choice(value: Any) -> Any:
    if value not in _CHOICES:
        raise ValueError(f"unknown layout option {value!r}")
    return value
