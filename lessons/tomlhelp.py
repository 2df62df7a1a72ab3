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

from lessons.messages import say
from lessons.text import LocalText

_KEY_LINE = re.compile(r'^\s*[A-Za-z0-9_."\'-]+\s*=\s*("""|\'\'\')')
_HEADER = re.compile(r"^\s*\[\[?[A-Za-z0-9_. -]+\]\]?\s*(#.*)?$")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PYTHONISMS = {  # a word TOML does not know: (the problem's kind in lessons.messages, the TOML to write)
    "True": ("toml_lowercase_bool", "true"),
    "False": ("toml_lowercase_bool", "false"),
    "TRUE": ("toml_lowercase_bool", "true"),
    "FALSE": ("toml_lowercase_bool", "false"),
    "yes": ("toml_yes_no", "true"),
    "no": ("toml_yes_no", "false"),
    "None": ("toml_no_null", ""),
    "null": ("toml_no_null", ""),
    "nil": ("toml_no_null", ""),
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
    """A TOML file that is refused: `line` (1-based, or None) and a message with the fix (`ja`: the same in
    Japanese)."""

    def __init__(self, line: int | None, message: LocalText) -> None:
        super().__init__(message.en)
        self.line = line
        self.message = message.en
        self.ja = message.ja


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
        raise TomlError(None, say("too_deep")) from None


def exceeded_bound(text: str) -> tuple[int, LocalText] | None:
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
                return _line(text, match.start()), say("nesting_bound", cap=MAX_NESTING)
        elif kind == "close":
            depth = max(depth - 1, 0)
        elif kind == "other":
            dots += match.group().count(".")
            if dots >= MAX_KEY_PARTS:
                return _line(text, match.start()), say("key_parts_bound", cap=MAX_KEY_PARTS)
            continue
        elif kind == "separator" and match.group() != "\n":
            entries += 1
            if entries > MAX_ENTRIES:
                return _line(text, match.start()), say("entries_bound", cap=MAX_ENTRIES)
        elif kind == "string":
            continue
        dots = 0
    return None


def _line(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def _decode_error(text: str, message: str) -> tuple[int | None, LocalText]:
    match = re.search(r"\s*\(at line (\d+), column (\d+)\)$", message)
    if match:
        return explain(text, int(match.group(1)), int(match.group(2)), message[:match.start()])
    return explain(text, None, None, re.sub(r"\s*\(at end of document\)$", "", message))


def explain(text: str, line: int | None, column: int | None, message: str) -> tuple[int | None, LocalText]:
    """(line, message) for a TOML syntax error: the mistake named and its fix, at the line it is on; the
    common slips (an unclosed string, a missing comma, a key given twice, curly quotes) also in Japanese."""
    unclosed = unclosed_string(text)
    if unclosed is not None:
        start, quotes, key = unclosed
        what = f"the {quotes} string of `{key}`" if key else f"the {quotes} string"
        return start, LocalText(
            f"TOML syntax error: {what} that starts here is never closed (the parser only noticed at "
            f"{_where(line)}): end it with {quotes} on a line of its own",
            f"TOML の構文エラー: ここから始まる {quotes} の文字列{_of_key(key)}が閉じられていません"
            f"（パーサーが気づいたのは{_where_ja(line)}です）。{quotes} だけの行を書いて閉じてください")
    if line is None:
        return text.count("\n") + 1, say("toml_syntax_end", reason=message)
    rows = text.splitlines()
    source = rows[line - 1] if line <= len(rows) else ""
    for slip in (_unclosed_quote, _missing_comma, _key_twice, _curly_quote, _not_a_value):
        found = slip(rows, source, line, column, message)
        if found is not None:
            return found
    return line, say("toml_syntax", column=column, reason=message)


def _unclosed_quote(rows, source, line, column, message):
    """`title = "Hello` + newline: tomllib says "Illegal character '\\n'" at the line's end."""
    if not message.startswith("Illegal character '\\n'"):
        return None
    start = _open_quote(source)
    if start is None:
        return None
    quote = source[start]
    return line, LocalText(
        f"TOML syntax error at column {start + 1}: the string that starts here is never closed on its line: "
        f"end it with {quote} (text over several lines goes between {quote * 3} and {quote * 3})",
        f"TOML の構文エラー: {start + 1} 列目から始まる文字列がその行で閉じられていません。"
        f"行の中で {quote} を書いて閉じてください（複数行の文章は {quote * 3} と {quote * 3} で囲みます）")


def _missing_comma(rows, source, line, column, message):
    """`["one"` newline `"two"]`: tomllib says "Unclosed array" where the next item starts."""
    if not message.startswith("Unclosed array") or source[column - 1:column] in ("]", ""):
        return None
    before = _code(source[:column - 1])
    at = line
    while not before.strip() and at > 1:  # the previous line with code on it ends the item before
        at -= 1
        before = _code(rows[at - 1])
    if not before.strip() or before[-1] in ",[":
        return None
    return at, LocalText(
        f"TOML syntax error at column {len(before)}: a comma is missing after this item of the array "
        f"(the parser only noticed at line {line}): write `,` after it",
        f"TOML の構文エラー: 配列のこの要素の後ろにカンマがありません（パーサーが気づいたのは {line} 行目です）。"
        f"{len(before)} 列目の後ろに `,` を書いてください")


def _key_twice(rows, source, line, column, message):
    """`title = …` twice in one table: tomllib says "Cannot overwrite a value" without naming it."""
    key = _KEY_NAME.match(source)
    if not message.startswith("Cannot overwrite a value") or key is None:
        return None
    name = key.group(1).strip()
    first_part = _KEY_NAME_FIRST.match(name).group(0).strip()
    first = first_name = None
    for at in range(line - 1, 0, -1):
        row = rows[at - 1]
        if _HEADER.match(row):
            break
        other = _KEY_NAME.match(row)
        if other is not None and _KEY_NAME_FIRST.match(other.group(1)).group(0).strip() == first_part:
            first, first_name = at, other.group(1).strip()
    if first is not None and first_name != name:  # `text = "…"`, then `text.en = "…"`
        return line, LocalText(
            f"TOML syntax error: `{first_part}` is written two ways, `{first_name} = …` on line {first} and "
            f"`{name} = …` here: write it one way only",
            f"TOML の構文エラー: `{first_part}` が 2 通りに書かれています（{first} 行目の `{first_name} = …` と、"
            f"この行の `{name} = …`）。どちらか一方の書き方だけにしてください")
    where = f" (first on line {first})" if first is not None else ""
    where_ja = f"（最初は {first} 行目）" if first is not None else ""
    return line, LocalText(
        f"TOML syntax error: `{name}` is given a value twice in the same table{where}: remove one of them — "
        "or, if this line starts another step, put `[[steps]]` above it",
        f"TOML の構文エラー: 同じテーブルの中で `{name}` に値が 2 回書かれています{where_ja}。どちらかを消してください"
        "（ここから次のステップを始めるなら、この上に `[[steps]]` を書きます）")


def _curly_quote(rows, source, line, column, message):
    """`title = “Hello”`: a word processor's quotes; tomllib says "Invalid value"."""
    char = source[column - 1:column]
    if not message.startswith("Invalid value") or char not in _CURLY:
        return None
    straight = _CURLY[char]
    return line, LocalText(
        f"TOML syntax error at column {column}: {char} is a curly quote, which TOML does not read as a quote: "
        f"write a straight {straight} instead (an editor or word processor changed it)",
        f"TOML の構文エラー: {column} 列目の {char} は全角・飾りの引用符で、TOML では引用符になりません。"
        f"半角の {straight} に書き換えてください（エディタやワープロが自動で変えたものです）")


def _not_a_value(rows, source, line, column, message):
    if not message.startswith("Invalid value"):
        return None
    word = _WORD.match(source[column - 1:])
    if word and word.group(0) in _PYTHONISMS:
        kind, right = _PYTHONISMS[word.group(0)]
        return line, say(kind, column=column, word=word.group(0), right=right)
    if word:
        return line, say("toml_not_a_value", column=column, word=word.group(0))
    return None


_CURLY = {"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'", "‚": "'", "«": '"', "»": '"'}
_KEY_NAME = re.compile(r"""^\s*((?:[A-Za-z0-9_-]+|"[^"\n]*"|'[^'\n]*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"\n]*"|'[^'\n]*'))*)\s*=""")
_KEY_NAME_FIRST = re.compile(r"""\s*(?:[A-Za-z0-9_-]+|"[^"\n]*"|'[^'\n]*')""")


def _code(row: str) -> str:
    """A line without its comment and trailing blanks (quotes respected)."""
    i, quote = 0, None
    while i < len(row):
        char = row[i]
        if quote is not None:
            if char == "\\" and quote == '"':
                i += 1
            elif char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char == "#":
            return row[:i].rstrip()
        i += 1
    return row.rstrip()


def _open_quote(row: str) -> int | None:
    """The index of the quote whose string is still open at the end of `row`, or None."""
    i, start = 0, None
    while i < len(row):
        char = row[i]
        if start is not None:
            if char == "\\" and row[start] == '"':
                i += 1
            elif char == row[start]:
                start = None
        elif char in "\"'":
            start = i
        elif char == "#":
            return None
        i += 1
    return start


def _of_key(key: str | None) -> str:
    return f"（`{key}` の値）" if key else ""


def _where_ja(line: int | None) -> str:
    return f" {line} 行目" if line is not None else "ファイルの終わり"


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
