"""Lesson Markdown drawn by rich in one widget.

Textual's `Markdown` widget builds a widget per block, and restyling dozens of them on every step
made a step change take seconds; one `Static` holding rich's Markdown draws the same text (code
blocks highlighted, tables, lists, double-width Japanese) at a fraction of the cost.
"""
from __future__ import annotations

from typing import ClassVar

from pygments.styles import get_style_by_name
from pygments.token import Error
from rich.markdown import Heading, Markdown
from rich.syntax import PygmentsSyntaxTheme
from textual.widgets import Static

from tutor.themes import CODE_THEMES
from tutor.untrusted import plain
from tutor.widgets.japanese_wrap import join_japanese_lines


class _LeftHeading(Heading):
    LEVEL_ALIGN: ClassVar[dict[str, str]] = dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), "left")


def _inline_code_theme(name: str) -> PygmentsSyntaxTheme:
    """The code theme without its red error marks: inline code is often maths (`d(x_i ** 2)/dx_i = 2 x_i`),
    which the Python lexer does not know, and must not look like a mistake."""
    base = get_style_by_name(name)
    return PygmentsSyntaxTheme(type(f"Inline{base.__name__}", (base,), {"styles": {**base.styles, Error: ""}}))


INLINE_CODE_THEMES = {dark: _inline_code_theme(name) for dark, name in CODE_THEMES.items()}


class _LessonMarkdown(Markdown):
    elements = {**Markdown.elements, "heading_open": _LeftHeading}


class MarkdownText(Static):
    """A Static showing Markdown; `source` keeps the text it shows."""

    def __init__(self, source: str = "", **kwargs) -> None:
        super().__init__(**kwargs)
        self.source = ""
        self.show_markdown(source)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda theme: self.show_markdown(self.source))
        self.show_markdown(self.source)  # made before the widget knew its app's theme

    def show_markdown(self, source: str) -> None:
        self.source = source
        dark = self.app.current_theme.dark if self.is_attached else True
        # lesson text: cleaned, and links drawn as their text and address, never as terminal hyperlinks
        self.update(_LessonMarkdown(plain(join_japanese_lines(source)), code_theme=CODE_THEMES[dark],
                                    inline_code_lexer="python", inline_code_theme=INLINE_CODE_THEMES[dark],
                                    hyperlinks=False) if source else "")
