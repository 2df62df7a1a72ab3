"""`tutor.untrusted`, the one sanitiser: each function on every control character, markup and formula,
and the app's last wall (`TerminalWall`) on rendered segments."""
import csv
import io
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from tutor.untrusted import TerminalWall, csv_cell, echo, json_dumps, markup, plain, text

# every code point a terminal may obey or that reorders what is read
CONTROLS = [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0), *range(0x202A, 0x202F),
            *range(0x2066, 0x206A)]
OBEYED = {chr(code) for code in CONTROLS}


def test_plain_makes_every_control_visible_one_for_one():
    raw = "".join(map(chr, CONTROLS)) + "\t\n"
    cleaned = plain(raw)
    assert len(cleaned) == len(raw)  # Rich spans keep pointing at the same characters
    assert not OBEYED & set(cleaned)
    assert cleaned.endswith("\t\n")  # tab and newline are text
    assert plain("\x1b]52;c;UFdORUQ=\x07") == "␛]52;c;UFdORUQ=␇"


@given(st.text())
def test_plain_leaves_nothing_to_obey_and_is_idempotent(value):
    cleaned = plain(value)
    assert not OBEYED & set(cleaned)
    assert len(cleaned) == len(value)
    assert plain(cleaned) == cleaned


@pytest.mark.parametrize("hostile", ["[@click=app.quit]Eve[/]", "[/]", "[link=https://evil.example]Bob[/]",
                                     "[b]bold[/b] \\[", "[on red]x", "Eve\\", "\\\\[b]"])
def test_markup_reads_literally(hostile):
    rendered = Text.from_markup(f"[bold]{markup(hostile)}[/bold]")
    assert rendered.plain == hostile
    assert [str(span.style) for span in rendered.spans] == ["bold"]


@given(st.text(alphabet="\\[]/@#=ab "))
def test_markup_reads_back_as_written_around_our_own_tags(value):
    assert Text.from_markup(f"[bold]{markup(value)}[/bold]").plain == value


def test_text_cleans_an_assembled_text_and_keeps_its_styles():
    assembled = Text.assemble(("ours: ", "bold"), "\x1b]0;T\x07[@click=app.quit]q[/]", (" end", "red"))
    cleaned = text(assembled)
    assert cleaned.plain == "ours: ␛]0;T[@click=app.quit]q[/] end"  # (Rich's Text drops BEL itself)
    assert [(cleaned.plain[s.start:s.end], str(s.style)) for s in cleaned.spans] == [("ours: ", "bold"), (" end", "red")]
    assert assembled.plain.startswith("ours: \x1b")  # a copy: the caller's Text is untouched
    assert text("[b]x[/b]", "dim").plain == "[b]x[/b]"


@pytest.mark.parametrize("value, cell", [("=HYPERLINK(\"https://evil.example\",\"Bob\")", "'=HYPERLINK(\"https://evil.example\",\"Bob\")"),
                                         ("+1", "'+1"), ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"),
                                         ("\tx", "'\tx"), ("\r=1", "␍=1"), ("Alice", "Alice"), ("", "")])
def test_csv_cell_defuses_formulas(value, cell):
    assert csv_cell(value) == cell
    buffer = io.StringIO()
    csv.writer(buffer).writerow([csv_cell(value)])
    assert next(csv.reader(io.StringIO(buffer.getvalue()))) == [cell]


def test_json_dumps_is_the_same_value_with_nothing_raw():
    value = {"name": "\x1b]0;T\x07 \x9b2J \u202eevil \x7f 日本語", "n": [1, 2.5, None]}
    encoded = json_dumps(value, indent=1)
    assert json.loads(encoded) == value
    assert not OBEYED & set(encoded)
    assert "日本語" in encoded  # readable text stays readable


def test_echo_prints_cleaned_text_and_applies_our_style_after(capsys):
    echo("a \x1b]0;T\x07 b")
    echo("dim", dim=True, nl=False)
    out = capsys.readouterr().out
    assert "a ␛]0;T␇ b\n" in out
    assert "\x1b]" not in out


def _rendered(segments) -> str:
    """What a terminal would get (a linked style renders as an OSC 8 hyperlink)."""
    return "".join(style.render(text_) if style else text_ for text_, style, _ in segments)


def test_the_wall_drops_controls_and_hyperlinks_and_keeps_the_rest():
    wall = TerminalWall()
    linked = Style(bold=True, link="https://evil.example/\x1b]0;T\x07")
    segments = [Segment("ok ", Style(color="red")), Segment("a\x1b]0;T\x07b\x9b\t\n", None), Segment("link", linked)]
    walled = wall.apply(segments, None)
    assert [s.text for s in walled] == ["ok ", "a]0;Tb", "link"]
    assert walled[0] is segments[0]  # nothing to do: the same segment
    assert walled[2].style.bold and walled[2].style.link is None
    assert "\x1b]8" not in _rendered(walled) and "\x1b]0" not in _rendered(walled)


def test_importing_the_boundary_compiles_only_the_walls_pattern():
    """The wall's pattern is compiled at import (every rendered line needs it); those of `typed`, `markup` and
    `json_dumps` when first used (about 0.6% of the app's start-up to compile, for nothing on its first screen)."""
    import subprocess
    import sys

    probe = """
import re
import tutor.untrusted as u
compiled = lambda source: any(key[1] == getattr(source, "pattern", source) for key in re._cache)
print(compiled(u._UNSENDABLE.pattern), *(compiled(s) for s in (u._MARKUP, u._JSON_RAW, u._ESCAPE_SEQUENCE, u._TYPED_CONTROL)))
u.typed("a\\x1b[1mb"), u.markup("[b]"), u.json_dumps("\\x7f")
print(*(compiled(s) for s in (u._MARKUP, u._JSON_RAW, u._ESCAPE_SEQUENCE, u._TYPED_CONTROL)))
"""
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    assert result.stdout.split("\n")[:2] == ["True False False False False", "True True True True"]
