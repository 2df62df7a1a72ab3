"""The class of the bug, closed in the source: nothing in `tutor/` builds markup out of text it did not write.

Checked on the syntax tree of every module, so a new screen or command that forgets the boundary fails here
before any attack is tried: the command line prints only through `tutor.untrusted.echo`; no f-string mixing
markup tags with interpolated values goes to a sink or the catalogue; nothing asks for markup to be parsed (`markup=True`, `from_markup` of a
non-constant); and a markup-reading sink (`Static`, `.update`, `Label`, `Button`, `Option`, `TabPane`,
`console.print`) never gets an f-string or a catalogue string with parameters — those go in a `Text`.
"""
import ast
import re
import sys
from pathlib import Path

import pytest

TUTOR = Path(__file__).parents[2] / "tutor"
BOUNDARY = TUTOR / "untrusted.py"
SOURCES = sorted(path for path in TUTOR.rglob("*.py") if path != BOUNDARY)
TAG = re.compile(r"\[/?[a-z@#][^\]]*\]")  # a Rich/Textual markup tag: [b], [/], [@click=…], [link=…]
SINKS = {"Static", "update", "Label", "Button", "Option", "TabPane", "print"}


def _name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _markup_fstring(node: ast.AST) -> bool:
    return (isinstance(node, ast.JoinedStr) and any(isinstance(part, ast.FormattedValue) for part in node.values)
            and any(isinstance(part, ast.Constant) and TAG.search(str(part.value)) for part in node.values))


def _interpolated(node: ast.AST) -> bool:
    """An f-string with values, or a catalogue string `t(key, lang, name=value)` with parameters."""
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(part, ast.FormattedValue) for part in node.values)
    return isinstance(node, ast.Call) and _name(node) == "t" and bool(node.keywords)


def problems(path: Path) -> list[str]:
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        where = f"{path.relative_to(TUTOR.parent)}:{getattr(node, 'lineno', '?')}"
        if not isinstance(node, ast.Call):
            continue
        name = _name(node)
        if name in SINKS | {"t", "notify"} and any(map(_markup_fstring, [*node.args, *(k.value for k in node.keywords)])):
            found.append(f"{where}: markup tags around interpolated values (build a Text instead)")
        if isinstance(node.func, ast.Attribute) and name in ("echo", "secho") and getattr(node.func.value, "id", "") == "click":
            found.append(f"{where}: click.{name} (print through tutor.untrusted.echo)")
        if name == "print" and isinstance(node.func, ast.Name):
            found.append(f"{where}: print() (print through tutor.untrusted.echo)")
        if any(k.arg == "markup" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
               for k in node.keywords):
            found.append(f"{where}: markup= other than False")
        if name == "from_markup" and node.args and not isinstance(node.args[0], ast.Constant):
            found.append(f"{where}: from_markup of a value that is not a constant")
        if name in SINKS and node.args and _interpolated(node.args[0]):
            found.append(f"{where}: {name}() reads markup: give it text(…) or a Text, not an interpolated string")
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: str(path.relative_to(TUTOR)))
def test_no_markup_is_built_from_values(path):
    assert problems(path) == []


def test_the_scan_finds_each_kind_of_mistake(tmp_path, monkeypatch):
    module = tmp_path / "tutor" / "bad.py"
    module.parent.mkdir()
    module.write_text('import click\n'
                      'click.echo(name)\n'
                      'print(name)\n'
                      'Static(f"[b]{name}[/b]")\n'
                      'self.notify(message, markup=True)\n'
                      'Text.from_markup(title)\n'
                      'label.update(t("reset_done", lang, title=title))\n'
                      'Static(f"{name} joined")\n'
                      'Static(text(t("reset_done", lang, title=title)))\n'   # fine
                      'Static(t("help_intro", lang))\n')                     # fine: catalogue text only
    monkeypatch.setattr(sys.modules[__name__], "TUTOR", tmp_path / "tutor")
    found = problems(module)
    assert sorted(int(line.split(":")[1]) for line in found) == [2, 3, 4, 4, 5, 6, 7, 8], found
