"""Explaining TOML syntax errors the way an author can act on them.

`tomllib` says "Invalid value (at line 3, column 9)" for `correct = True` and reports an unclosed
`\"\"\"` where the *next* string begins, often many lines later. `explain(text, line, column, message)`
turns such a message into the mistake and its fix, and moves the line to where the mistake is.
"""
from __future__ import annotations

import re

_KEY_LINE = re.compile(r'^\s*[A-Za-z0-9_."\'-]+\s*=\s*("""|\'\'\')')
_HEADER = re.compile(r"^\s*\[\[?[A-Za-z0-9_. -]+\]\]?\s*(#.*)?$")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PYTHONISMS = {
    "True": "TOML's booleans are lowercase: write `true`",
    "False": "TOML's booleans are lowercase: write `false`",
    "TRUE": "TOML's booleans are lowercase: write `true`",
    "FALSE": "TOML's booleans are lowercase: write `false`",
    "yes": "TOML has no `yes`: write `true` (or \"yes\" in quotes for the text)",
    "no": "TOML has no `no`: write `false` (or \"no\" in quotes for the text)",
    "None": "TOML has no None/null: leave the key out instead",
    "null": "TOML has no None/null: leave the key out instead",
    "nil": "TOML has no None/null: leave the key out instead",
}


def explain(text: str, line: int | None, column: int | None, message: str) -> tuple[int | None, str]:
    """(line, message) for a TOML syntax error: the mistake named and its fix, at the line it is on."""
    unclosed = unclosed_string(text)
    if unclosed is not None:
        start, quotes, key = unclosed
        what = f"the {quotes} string of `{key}`" if key else f"the {quotes} string"
        return start, (f"TOML syntax error: {what} that starts here is never closed (the parser only noticed at "
                       f"{_where(line)}): end it with {quotes} on a line of its own")
    if line is not None and column is not None and message.startswith("Invalid value"):
        source = text.splitlines()[line - 1] if line <= len(text.splitlines()) else ""
        word = _WORD.match(source[column - 1:])
        if word and word.group(0) in _PYTHONISMS:
            return line, f"TOML syntax error at column {column}: {_PYTHONISMS[word.group(0)]}, not `{word.group(0)}`"
        if word:
            return line, (f"TOML syntax error at column {column}: `{word.group(0)}` is not a TOML value: "
                          f"put text in quotes (\"{word.group(0)}\"); booleans are `true`/`false`")
    if line is None:
        return text.count("\n") + 1, f"TOML syntax error at the end of the file: {message}"
    return line, f"TOML syntax error at column {column}: {message}"


def _where(line: int | None) -> str:
    return f"line {line}" if line is not None else "the end of the file"


def unclosed_string(text: str) -> tuple[int, str, str | None] | None:
    """(line, quotes, key) of a multi-line string that is probably never closed, or None.

    Scans the file the way TOML pairs quotes; a multi-line string whose content contains what looks
    like the next `key = \"\"\"` or a `[[table]]` header swallowed the rest of the lesson, and the one
    that began it is the unclosed one. A string still open at the end of the file is unclosed too.
    """
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for piece in lines:
        offsets.append(offsets[-1] + len(piece))
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if text.startswith('"""', i) or text.startswith("'''", i):
            quotes = text[i:i + 3]
            close = _close_multiline(text, i + 3, quotes)
            start_line = _line_of(offsets, i)
            key = _key_before(lines[start_line - 1])
            if close < 0:
                return start_line, quotes, key
            body = text[i + 3:close]
            if any(_KEY_LINE.match(row) or _HEADER.match(row) for row in body.splitlines()[1:]):
                return start_line, quotes, key
            i = close + 3
            continue
        if char in "\"'":
            end = i + 1
            while end < n and text[end] not in (char, "\n"):
                end += 2 if char == '"' and text[end] == "\\" else 1
            i = end + 1
            continue
        i += 1
    return None


def _close_multiline(text: str, start: int, quotes: str) -> int:
    i = start
    while True:
        found = text.find(quotes, i)
        if found < 0:
            return -1
        if quotes == '"""':
            backslashes = 0
            j = found - 1
            while j >= start and text[j] == "\\":
                backslashes += 1
                j -= 1
            if backslashes % 2:
                i = found + 1
                continue
        while text.startswith(quotes[0], found + 3):  # up to two quotes may end the content: """a"""""
            found += 1
        return found


def _line_of(offsets: list[int], position: int) -> int:
    import bisect

    return bisect.bisect_right(offsets, position)


def _key_before(row: str) -> str | None:
    match = re.match(r'^\s*([A-Za-z0-9_.-]+)\s*=', row)
    return match.group(1) if match else None
