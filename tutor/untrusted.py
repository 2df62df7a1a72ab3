"""The terminal boundary: every string this repo did not write — lesson text, snippet output and values,
exception messages, step expressions, pack and roster values, student names — passes here before a
terminal, a Rich/Textual renderable, a CSV file or a browser page sees it.

One module, so that a channel cannot forget a rule: control characters and escape sequences are made
visible (ESC as ␛, other C0/C1 controls as their Control Pictures or �), never sent; Rich/Textual markup is
escaped wherever our own markup is applied around the text; spreadsheet formulas are defused in CSV cells.
Our own markup is applied *after* this, never by concatenating untrusted text into a markup string.
"""
from __future__ import annotations

from rich.markup import escape as _escape_markup
from rich.text import Text

# C0 controls but tab and newline, DEL and the C1 range; ESC shown as ␛ so an attack is visible, not obeyed.
_VISIBLE = {code: chr(0x2400 + code) for code in [*range(0x00, 0x09), *range(0x0B, 0x20)]}
_VISIBLE[0x1B] = "␛"
_VISIBLE[0x7F] = "␡"
_VISIBLE.update(dict.fromkeys(range(0x80, 0xA0), "\N{REPLACEMENT CHARACTER}"))
# Bidirectional overrides and isolates reorder what the reader sees (a name or formula that reads as another).
_VISIBLE.update(dict.fromkeys([*range(0x202A, 0x202F), *range(0x2066, 0x206A)], "\N{REPLACEMENT CHARACTER}"))
_CSV_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def plain(text: object) -> str:
    """`text` safe to write to a terminal as it is: no control character, escape sequence or bidi override."""
    return str(text).translate(_VISIBLE)


def markup(text: object) -> str:
    """`text` safe to embed in a Rich/Textual markup string: `plain`, with markup (`[b]`, `[@click=…]`,
    `[link=…]`) escaped so it reads literally."""
    return _escape_markup(plain(text))


def text(value: object, style: str = "") -> Text:
    """A Rich `Text` of `value`, never parsed as markup: the safe way to hand untrusted text to a widget."""
    return Text(plain(value), style=style)


def csv_cell(value: object) -> str:
    """A CSV text cell a spreadsheet shows as text: `plain`, and a leading `= + - @` (a formula) quoted with
    `'`. For text only: numbers are written as numbers."""
    cell = plain(value)
    return "'" + cell if cell.startswith(_CSV_FORMULA) else cell
