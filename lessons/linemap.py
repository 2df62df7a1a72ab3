"""Where each key of a TOML file is, since `tomllib` does not say.

`tomllib` returns plain dicts, so a schema error would lose its line. This
module scans the text once, tracking table headers (`[[steps]]`,
`[[steps.choices]]`, `[quiz.params]`) and `key =` lines outside strings, and
maps key paths such as `steps[3].expression` to line numbers. For string
values it also records the line where the string's content starts, so a
snippet's line 5 can be reported as the file line it is written on.
"""
from __future__ import annotations

import re

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\[\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^\s*((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*=\s*(.*)$""")
_VALUE_SUFFIX = "@value"
# Outside strings: a comment, a multi-line string opener, a one-line string, or a run of other characters.
_TOKEN = re.compile(r"""#|\"\"\"|'''|"(?:[^"\\]|\\.)*"?|'[^']*'?|[^"'#]+""")


def _names(dotted: str) -> list[str]:
    return [part.strip().strip("\"'") for part in re.findall(r"""[^."']+|"[^"]*"|'[^']*'""", dotted) if part.strip()]


def _close(line: str, start: int, delimiter: str) -> int:
    """Index of the delimiter closing a multi-line string at or after `start` (-1 if it stays open)."""
    at = line.find(delimiter, start)
    while at >= 0 and delimiter == '"""':
        backslashes = len(line[:at]) - len(line[:at].rstrip("\\"))
        if backslashes % 2 == 0:
            break
        at = line.find(delimiter, at + 1)
    return at


def _string_state(line: str, state: str | None) -> str | None:
    """The open multi-line string delimiter after scanning `line` (None when outside strings)."""
    i = 0
    if state is not None:  # most lines of a lesson are inside a text block: jump to its end, if any
        end = _close(line, 0, state)
        if end < 0:
            return state
        i, state = end + 3, None
    if '"' not in line and "'" not in line:
        return None
    while i < len(line):
        token = _TOKEN.match(line, i)
        text = token.group()
        if text == "#":
            return None
        if text in ('"""', "'''"):
            end = _close(line, token.end(), text)
            if end < 0:
                return text
            i = end + 3
            continue
        i = token.end()
    return None


def build_line_map(text: str) -> dict[str, int]:
    """Key path -> line (1-based); `path@value` -> the line a string value's content starts on."""
    lines: dict[str, int] = {}
    arrays: dict[str, int] = {}
    prefix = ""
    state: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if state is not None:
            state = _string_state(line, state)
            continue
        header = _HEADER.match(line)
        if header:
            prefix = _resolve(_names(header.group(2)), arrays, lines, number, is_array=header.group(1) == "[[")
            lines.setdefault(prefix, number)
            continue
        key = _KEY.match(line)
        if key:
            path = ".".join(filter(None, [prefix, *_names(key.group(1))]))
            lines.setdefault(path, number)
            value = key.group(2)
            if value.startswith(('"""', "'''")):
                # TOML drops a newline right after the opening delimiter
                lines.setdefault(path + _VALUE_SUFFIX, number + (not value[3:].strip()))
            elif value.startswith(('"', "'")):
                lines.setdefault(path + _VALUE_SUFFIX, number)
        state = _string_state(line, None)
    return lines


def _resolve(names: list[str], arrays: dict[str, int], lines: dict[str, int], number: int, *, is_array: bool) -> str:
    path = ""
    for position, name in enumerate(names):
        path = f"{path}.{name}" if path else name
        last = position == len(names) - 1
        if last and is_array:
            arrays[path] = arrays.get(path, 0) + 1
            lines.setdefault(path, number)
        if path in arrays:
            path = f"{path}[{arrays[path] - 1}]"
    return path


_PARENT = re.compile(r"(\.[^.\[]+|\[\d+\])$")


def nearest_line(lines: dict[str, int], key_path: str) -> int | None:
    """The line of `key_path`, or of the nearest enclosing key path the map knows."""
    path = key_path
    while path:
        if path in lines:
            return lines[path]
        parent = _PARENT.sub("", path)
        if parent == path:
            break
        path = parent
    return None


def value_line(lines: dict[str, int], key_path: str) -> int | None:
    """The line a string value's content starts on, if the map knows it."""
    return lines.get(key_path + _VALUE_SUFFIX)
