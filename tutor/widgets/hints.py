"""Hints, revealed one at a time."""
from __future__ import annotations

from tutor.i18n import t
from tutor.widgets.markdown_text import MarkdownText


class Hints(MarkdownText):
    """Shows the first `shown` hints of a step; the lesson screen raises `shown` on `h`."""

    def show(self, hints: list[str], shown: int, lang: str) -> None:
        self.display = shown > 0
        parts = [f"**{t('hint_title', lang, index=i + 1, total=len(hints))}**: {hint}" for i, hint in enumerate(hints[:shown])]
        self.show_markdown("\n\n".join(parts))
