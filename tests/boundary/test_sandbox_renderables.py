"""Style data coming back from the sandbox worker: text cleaned, never markup, no hyperlink or action."""
import io
import json

import pytest
from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from engine.sandbox.renderables import Deferred, from_data, to_data
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


def _unusual_table() -> Table:
    table = Table(title=Text("t"), show_header=True, box=None, show_lines=True, show_edge=False, pad_edge=False,
                  expand=True, padding=(1, 2), collapse_padding=True)
    table.add_column(Text("h", style="bold"), justify="left", vertical="middle", style="red", no_wrap=False,
                     overflow="fold")
    table.add_column("plain")
    table.add_row(Text("a", style="green", justify="center", overflow="crop", no_wrap=True, end=""), "b")
    return table


def test_what_the_child_leaves_out_comes_back_as_it_was():
    """The pipe leaves out each field's usual value; whatever a field held, the panel draws the same."""
    tree = Tree(Text("root", style="bold cyan"), guide_style="red")
    tree.add(Text("leaf", spans=[]))
    usual = Table(show_header=False)
    usual.add_column(justify="right", no_wrap=True)
    usual.add_row("1.0")
    for sent in (_unusual_table(), usual, tree, Panel(Group(Text("x"), usual), title="p"),
                 Text("styled", style="italic", justify="right", overflow="ellipsis", no_wrap=False, end="")):
        data = json.loads(json.dumps(to_data(sent)))
        assert render(from_data(data, plain)) == render(sent)


def test_the_bundled_explanation_panels_draw_the_same_after_the_pipe():
    from engine.explain import explain_program
    from engine.explain import render as panels

    source = ("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\n"
              "y = (x ** 2 * torch.tensor([3., 4.])).sum()\ny.backward()\n")
    call = explain_program(source).calls[0]
    for sent in (panels.render_summary(call), panels.render_jacobian(call), panels.render_vjp(call),
                 panels.render_graph(call), panels.render_fd_check(call),
                 *(panels.render_trace_step(call, i) for i in range(len(call.trace)))):
        assert render(from_data(json.loads(json.dumps(to_data(sent))), plain)) == render(sent)


def test_a_deferred_panel_is_rebuilt_when_drawn_and_bad_data_draws_a_message():
    good = Deferred(to_data(_unusual_table()), plain, "unreadable")
    assert render(good) == render(_unusual_table())
    assert good.__rich__() is good.__rich__()  # rebuilt once
    linked = to_data(Text("x"))
    linked["style"] = "link https://evil.example"
    for bad in (linked, {"t": "bogus"}, ["not", "a", "renderable"], {"t": "table", "columns": [1]}):
        shown = render(Deferred(bad, plain, "could not be read back"))
        assert "could not be read back" in shown and "evil" not in shown


def test_an_explanations_panels_wait_as_data_until_drawn_and_one_bad_panel_costs_only_itself():
    """The worker's answer is read back with every panel deferred: a panel the child sent malformed (or
    hostile) draws the message in its place, in the learner's language, while the others draw as sent."""
    from engine.explain import explain_program
    from engine.explain import render as panels
    from engine.explain.messages import t
    from engine.sandbox import jobs
    from engine.sandbox.explanations import PANELS, _rebuild

    source = "import torch\nx = torch.tensor([1., 2.], requires_grad=True)\n(x ** 2).sum().backward()\n"
    answer = json.loads(json.dumps(jobs.explain(source, lang="ja")))
    answer["panels"][0]["vjp"] = {"t": "text", "plain": "evil", "style": "link https://evil.example"}
    explanation = _rebuild(answer, plain, "ja")
    call = explanation.panels[0]
    assert all(isinstance(getattr(call, name), Deferred) for name in PANELS)
    assert t("unreadable_panel", "ja") in render(call.vjp) and "evil" not in render(call.vjp)
    sent = explain_program(source).calls[0]
    assert render(call.jacobian) == render(panels.render_jacobian(sent, lang="ja"))
    assert render(call.fd) == render(panels.render_fd_check(sent, lang="ja"))
