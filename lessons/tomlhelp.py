"""Explaining TOML syntax errors the way an author can act on them.

`tomllib` says "Invalid value (at line 3, column 9)" for `correct = True` and reports an unclosed
`\"\"\"` where the *next* string begins, often many lines later. `explain(text, line, column, message)`
turns such a message into the mistake and its fix, and moves the line to where the mistake is.

`loads(text)` is the one way this package parses a TOML file it did not write (a lesson, a pack.toml):
it first checks the raw text against `MAX_NESTING`, `MAX_KEY_PARTS` and `MAX_ENTRIES`, because
tomllib is quadratic in a dotted key's depth (40 KB of `a.a.a…` took 1.6 GB), recursive in nesting
(a 100000-deep array is a RecursionError), and slow per entry (a 1 MB array took over 10 s).
"""
from __future__ import annotations

import re
import tomllib

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


MAX_NESTING = 16  # arrays and inline tables inside each other (a lesson needs 3: shapes, [[steps]])
MAX_KEY_PARTS = 10  # parts of one dotted key or table header (a lesson needs 4: quiz.params.n.kind)
MAX_ENTRIES = 20_000  # keys and array items in one file (the biggest bundled lesson has under 400)

# Outside strings and comments, only these matter: brackets, `=`, `,`, newlines and dots in keys.
_SCAN = re.compile(r"""
    (?P<string>\"\"\"(?:[^\\"]++|\\[\s\S]|"(?!""))*+"{3,5}   # multi-line basic string
             | '''[\s\S]*?'{3,5}                                # multi-line literal string
             | "(?:[^"\\\n]++|\\.)*+"?                          # basic string (to the line's end if open)
             | '[^'\n]*+'?                                         # literal string
             | \#[^\n]*+)                                          # comment
  | (?P<open>[\[{]) | (?P<close>[\]}]) | (?P<separator>[=,\n])
  | (?P<other>[^\[\]{}=,\n"'\#]++)
""", re.VERBOSE)


class TomlError(ValueError):
    """A TOML file that is refused: `line` (1-based, or None) and a message with the fix."""

    def __init__(self, line: int | None, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def loads(text: str) -> dict:
    """`tomllib.loads` for a file from anyone: its size in nesting, key depth and entries checked on the
    raw text first. Raises `TomlError` (a bound exceeded, or a syntax error explained by `explain`)."""
    problem = exceeded_bound(text)
    if problem is not None:
        raise TomlError(*problem)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise TomlError(*_decode_error(text, str(error))) from None
    except RecursionError:  # the bounds above keep tomllib far from Python's recursion limit
        raise TomlError(None, "the file nests too deeply to be read") from None


def exceeded_bound(text: str) -> tuple[int, str] | None:
    """(line, message) for the first place the raw text goes past a bound, or None.

    A conservative scan: strings and comments are skipped as TOML delimits them, every `[`/`{` counts
    as nesting (a `[[steps]]` header is 2), the dots between two of `[ ] { } = , newline` as one key's.
    """
    depth = dots = entries = 0
    for match in _SCAN.finditer(text):
        kind = match.lastgroup
        if kind == "open":
            depth += 1
            if depth > MAX_NESTING:
                return _line(text, match.start()), (
                    f"arrays and tables are nested more than {MAX_NESTING} deep here; a lesson needs at most a "
                    "few levels — is this the right file?")
        elif kind == "close":
            depth = max(depth - 1, 0)
        elif kind == "other":
            dots += match.group().count(".")
            if dots >= MAX_KEY_PARTS:
                return _line(text, match.start()), (
                    f"a dotted key or table name here has more than {MAX_KEY_PARTS} parts; a lesson needs at "
                    "most a few (like quiz.params.n) — is this the right file?")
            continue
        elif kind == "separator" and match.group() != "\n":
            entries += 1
            if entries > MAX_ENTRIES:
                return _line(text, match.start()), (
                    f"the file has more than {MAX_ENTRIES} keys and array items; a lesson has far fewer — split "
                    "it into several lessons, or check that this is the right file")
        elif kind == "string":
            continue
        dots = 0
    return None


def _line(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def _decode_error(text: str, message: str) -> tuple[int | None, str]:
    match = re.search(r"\s*\(at line (\d+), column (\d+)\)$", message)
    if match:
        return explain(text, int(match.group(1)), int(match.group(2)), message[:match.start()])
    return explain(text, None, None, re.sub(r"\s*\(at end of document\)$", "", message))


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
