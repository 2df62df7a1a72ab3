"""A snippet and what it printed, like a notebook cell."""
from __future__ import annotations

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static


class SnippetCell(Vertical):
    """Code (highlighted) above its output; an error the program raises is shown in red."""

    def __init__(self, source: str, output: str | None, error: str | None, labels: dict[str, str], **kwargs) -> None:
        super().__init__(**kwargs)
        self._source = source.strip("\n")
        self._output = output
        self._error = error
        self._labels = labels

    def compose(self) -> ComposeResult:
        theme = "monokai" if self.app.current_theme.dark else "default"
        yield Static(Syntax(self._source, "python", theme=theme, line_numbers=False, word_wrap=True), classes="code")
        if self._output is None and self._error is None:
            return
        output = Text(self._output.rstrip("\n") if self._output else self._labels["no_output"], style="" if self._output else "dim")
        if self._error:
            if self._output:
                output.append("\n")
            output.append(self._labels["error"], style="bold red")
        yield Static(output, classes="output")
