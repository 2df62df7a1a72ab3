"""Hints, revealed one at a time."""
from __future__ import annotations

from textual.widgets import Markdown

from tutor.i18n import t


class Hints(Markdown):
    """Shows the first `shown` hints of a step; the lesson screen raises `shown` on `h`."""

    def show(self, hints: list[str], shown: int, lang: str) -> None:
        self.display = shown > 0
        parts = [f"**{t('hint_title', lang, index=i + 1, total=len(hints))}**: {hint}" for i, hint in enumerate(hints[:shown])]
        self.update("\n\n".join(parts))
