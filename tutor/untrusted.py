"""The terminal boundary: every string this repo did not write — lesson text, snippet output and values,
exception messages, step expressions, pack and roster values, student names — passes here before a
terminal, a Rich/Textual renderable, a CSV file or a browser page sees it.

One module, so that a channel cannot forget a rule: control characters and escape sequences are made
visible (ESC as ␛, other C0/C1 controls as their Control Pictures or �), never sent; untrusted text is never
parsed as markup (widgets get a `Text`; Rich console markup gets `markup`); spreadsheet formulas are defused
in CSV cells. Our own markup and styles are applied *after* this, never by concatenating untrusted text into
a markup string.

Each channel cleans its text here (so an attack shows as `␛]52;…`, visible to the learner); `TerminalWall`
is the last layer under them all, in the app: whatever a channel missed, no control character and no
terminal hyperlink leaves a rendered line. `docs/security.md` lists the layers.
"""
from __future__ import annotations

import json
import re

import click
from rich.segment import Segment
from rich.text import Text

# C0 controls but tab and newline, DEL and the C1 range; ESC shown as ␛ so an attack is visible, not obeyed.
_VISIBLE = {code: chr(0x2400 + code) for code in [*range(0x00, 0x09), *range(0x0B, 0x20)]}
_VISIBLE[0x1B] = "␛"
_VISIBLE[0x7F] = "␡"
_VISIBLE.update(dict.fromkeys(range(0x80, 0xA0), "\N{REPLACEMENT CHARACTER}"))
# Bidirectional overrides and isolates reorder what the reader sees (a name or formula that reads as another).
_VISIBLE.update(dict.fromkeys([*range(0x202A, 0x202F), *range(0x2066, 0x206A)], "\N{REPLACEMENT CHARACTER}"))
# Only the wall's pattern (_UNSENDABLE) is compiled at import: every rendered line needs it from the first frame on.
# The others are pattern sources, compiled by `re` when first used (and kept in its cache): with their character
# classes they took about 0.6% of the tutor's start-up to compile, for an answer, a markup string or JSON not yet there.
_MARKUP = r"(\\*)(?:(\[[a-z#/@][^[]*?\])|(\[)|$)"  # Rich's tags (rich.markup.RE_TAGS), a lone [, the end
_CSV_FORMULA = ("=", "+", "-", "@", "\t", "\r")
# What `plain` replaces, plus tab and newline: nothing of it may be inside one rendered line of the app.
_UNSENDABLE = re.compile("[" + re.escape("".join(map(chr, _VISIBLE))) + "\t\n]")
# What JSON (even with ensure_ascii=False) leaves raw in a string and a terminal could obey or be reordered by.
_JSON_RAW = "[\x7f-\x9f\u202a-\u202e\u2066-\u2069]"


# Terminal escape sequences, whole: CSI (colours `ESC[32m`, bracketed paste's markers `ESC[200~` `ESC[201~`), OSC
# (titles, hyperlinks; ended by BEL or ST), DCS/SOS/PM/APC strings, two-character escapes, and the 8-bit CSI.
_ESCAPE_SEQUENCE = (r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"
                    r"|\x1b[ -~]?|\x9b[0-?]*[ -/]*[@-~]")
# What is left of the controls once the sequences are gone (a carriage return becomes a line end, a tab stays).
_TYPED_CONTROL = "[" + re.escape("".join(chr(code) for code in _VISIBLE if code not in (0x0D,))) + "]"


def typed(text: str) -> str:
    """What a learner typed or pasted into a field, as they meant it: a printout copied from a terminal brings
    its colour codes along, a terminal without bracketed paste passes its markers on, Windows ends lines with
    CR LF. Escape sequences are removed whole (`ESC[32mtensor(...)ESC[0m` is the printout), other controls are
    dropped, a carriage return is a line end. The incoming side of the boundary: `plain` is the outgoing one."""
    return re.sub(_TYPED_CONTROL, "", re.sub(_ESCAPE_SEQUENCE, "", text).replace("\r\n", "\n").replace("\r", "\n"))


def plain(text: object) -> str:
    """`text` safe to write to a terminal as it is: no control character, escape sequence or bidi override.
    Each character is replaced by one character, so offsets into `text` (Rich spans) stay valid."""
    return str(text).translate(_VISIBLE)


def markup(text: object) -> str:
    """`text` safe to embed in a Rich console markup string: `plain`, with markup (`[b]`, `[@click=…]`,
    `[link=…]`) escaped so it reads literally, backslashes included. Textual parses markup by other rules:
    hand a widget `text(…)` instead, never a markup string with untrusted parts."""
    return re.sub(_MARKUP, _escape_one, plain(text))


def _escape_one(found: re.Match) -> str:
    """Rich reads `\\` before a tag as one backslash, a lone `\\[` as `[`, and backslashes ending the text
    as escaping the tag that follows: each case written so that it reads back as it was."""
    slashes, tag, bracket = found.groups()
    if tag is not None:
        return slashes * 2 + "\\" + tag
    if bracket is not None:
        return slashes + "\\[" if slashes else "["
    return slashes * 2


def text(value: object, style: str = "") -> Text:
    """A Rich `Text` of `value`, never parsed as markup: the safe way to hand untrusted text to a widget.
    A `Text` we assembled around untrusted parts comes back as a cleaned copy with its styles kept."""
    if isinstance(value, Text):
        cleaned = value.copy()
        cleaned.plain = plain(value.plain)  # one character for one: the spans stay where they were
        if style:
            cleaned.stylize(style)
        return cleaned
    return Text.assemble((plain(value), style))  # a span: a Text's own style is read as a CSS colour name


def csv_cell(value: object) -> str:
    """A CSV text cell a spreadsheet shows as text: `plain`, and a leading `= + - @` (a formula) quoted with
    `'`. For text only: numbers are written as numbers."""
    cell = plain(value)
    return "'" + cell if cell.startswith(_CSV_FORMULA) else cell


def json_dumps(value: object, **options) -> str:
    """`json.dumps` for a terminal: DEL, C1 controls and bidi overrides, which JSON leaves raw inside strings
    (with `ensure_ascii=False`), written as `\\uXXXX` escapes — the same JSON value, nothing a terminal obeys."""
    encoded = json.dumps(value, ensure_ascii=False, **options)
    return re.sub(_JSON_RAW, lambda found: f"\\u{ord(found.group()):04x}", encoded)


def echo(message: object = "", *, err: bool = False, nl: bool = True, **style) -> None:
    """Write a line of the command line's output (click), `plain`; our `style` (`dim=True`, `fg="red"`) is
    applied after cleaning. The one way `tutor.commands` prints text."""
    click.secho(plain(message), err=err, nl=nl, **style)


class TerminalWall:
    """The app's last layer, applied by Textual to every rendered line: drops control characters (they take
    no cell, so the layout stays) and terminal hyperlinks (`link` styles) from every segment. The channels
    clean their text first and show an attack visibly; this holds if one of them forgets.

    A `textual.filter.LineFilter` by its interface (`enabled`, `apply`), not by inheritance: the command line
    imports this module, and importing Textual would cost it most of a second."""

    enabled = True

    def apply(self, segments: list[Segment], background) -> list[Segment]:
        return [_walled(segment) for segment in segments]


def _walled(segment: Segment) -> Segment:
    text_, style, control = segment
    linked = style is not None and style.link
    if control or not (linked or _UNSENDABLE.search(text_)):
        return segment
    return Segment(_UNSENDABLE.sub("", text_), style.update_link(None) if linked else style)
