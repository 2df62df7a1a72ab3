"""Lesson Markdown drawn by rich in one widget.

Textual's `Markdown` widget builds a widget per block, and restyling dozens of them on every step
made a step change take seconds; one `Static` holding rich's Markdown draws the same text (code
blocks highlighted, tables, lists, double-width Japanese) at a fraction of the cost.
"""
from __future__ import annotations

from typing import ClassVar

from rich.markdown import Heading, Markdown
from textual.widgets import Static

from tutor.untrusted import plain
from tutor.widgets.japanese_wrap import join_japanese_lines


class _LeftHeading(Heading):
    LEVEL_ALIGN: ClassVar[dict[str, str]] = dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), "left")


class _LessonMarkdown(Markdown):
    elements = {**Markdown.elements, "heading_open": _LeftHeading}


class MarkdownText(Static):
    """A Static showing Markdown; `source` keeps the text it shows."""

    def __init__(self, source: str = "", **kwargs) -> None:
        super().__init__(**kwargs)
        self.source = ""
        self.show_markdown(source)

    def show_markdown(self, source: str) -> None:
        self.source = source
        # lesson text: cleaned, and links drawn as their text and address, never as terminal hyperlinks
        self.update(_LessonMarkdown(plain(join_japanese_lines(source)), code_theme="monokai",
                                    inline_code_lexer="python", hyperlinks=False) if source else "")
