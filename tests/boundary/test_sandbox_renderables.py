"""Style data coming back from the sandbox worker: text cleaned, never markup, no hyperlink or action."""
import io

import pytest
from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from engine.sandbox.renderables import from_data, to_data
from tutor.untrusted import plain

HOSTILE = "\x1b]0;PWNED\x07[@click=app.quit]q[/] [link=https://evil.example]L[/link]"


def render(renderable) -> str:
    console = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor", width=120)
    console.print(renderable)
    return console.file.getvalue()


def test_every_string_from_the_child_comes_back_cleaned_and_literal():
    table = Table(title=HOSTILE)
    table.add_column(HOSTILE)
    table.add_row(HOSTILE)
    tree = Tree(Text(HOSTILE))
    tree.add(HOSTILE)
    sent = Group(Panel(HOSTILE, title=HOSTILE), table, tree, HOSTILE)
    shown = render(from_data(to_data(sent), plain))
    assert "\x1b]0" not in shown and "\x07" not in shown and "\x1b]8" not in shown
    assert shown.count("␛]0;PWNED␇[@click=app.quit]q[/]") >= 6  # markup read literally, never parsed


@pytest.mark.parametrize("style", ["link https://evil.example", "bold link https://evil.example"])
def test_a_hyperlink_style_is_refused(style):
    data = to_data(Text("x", style="bold"))
    data["style"] = style
    with pytest.raises(ValueError):
        from_data(data, plain)
    data = to_data(Text("x"))
    data["spans"] = [[0, 1, style]]
    with pytest.raises(ValueError):
        from_data(data, plain)


def test_spans_outside_the_text_and_a_cleaner_that_changes_lengths_are_refused():
    data = to_data(Text("abc"))
    data["spans"] = [[0, 9, "bold"]]
    with pytest.raises(ValueError):
        from_data(data, plain)
    with pytest.raises(ValueError):
        from_data(to_data(Text("abc")), lambda s: s + "!")
