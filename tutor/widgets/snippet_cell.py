"""A snippet and what it printed, like a notebook cell (both untrusted: cleaned by `tutor.untrusted`)."""
from __future__ import annotations

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from tutor.themes import CODE_THEMES, MUTED
from tutor.untrusted import plain


def warm_highlighter() -> None:
    """Compile the Python lexer's patterns (Pygments does it on its first use, 0.1–0.2 s) before any code is
    shown: the start-up's warm-up thread calls it, so the first step or quiz question is not held up by it."""
    from pygments.lexers import get_lexer_by_name

    get_lexer_by_name("python")


class SnippetCell(Vertical):
    """Code (highlighted) above its own output; an error the program raised is shown in red.

    A step that continues earlier cells shows what *its* code printed; what the earlier cells
    printed is kept apart, dimmed under its own label (`earlier`), as a notebook keeps each cell's output.
    """

    def __init__(self, source: str, output: str | None, error: str | None, labels: dict[str, str],
                 earlier: str = "", warnings: str = "", **kwargs) -> None:
        super().__init__(**kwargs)
        # the program, what it printed and raised: cleaned before any Text is made of them
        self._source = plain(source.strip("\n"))
        self._output = None if output is None else plain(output)
        self._error = None if error is None else plain(error)
        self._labels = labels
        self._earlier = plain(earlier)
        self._warnings = plain(warnings).rstrip("\n")   # stderr: PyTorch's warnings, after what it printed

    def compose(self) -> ComposeResult:
        yield Static(self._code(self.app.current_theme.dark), classes="code")
        if self._output is None and self._error is None:
            return
        own = (self._output or "").rstrip("\n")
        # a cell that raised or warned does not "print nothing": its error or warning is what it shows
        output = (Text(own) if own or self._error or self._warnings
                  else Text.assemble((self._labels["no_output"], MUTED)))
        if self._warnings:
            if own:
                output.append("\n")
            output.append(self._warnings, style="yellow")
        if self._error:
            if own or self._warnings:
                output.append("\n")
            output.append(self._error, style="bold red")
        yield Static(output, classes="output")
        if self._earlier.strip():
            earlier = Text.assemble((self._labels.get("earlier", "earlier cells printed:") + "\n", "italic"))
            earlier.append(self._earlier.rstrip("\n"))
            yield Static(earlier, classes="earlier-output")

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, theme) -> None:
        self.query_one(".code", Static).update(self._code(theme.dark))

    def _code(self, dark: bool) -> Syntax:
        """The code highlighted in colours that suit the dark or the light theme."""
        return Syntax(self._source, "python", theme=CODE_THEMES[dark], line_numbers=False, word_wrap=True)
