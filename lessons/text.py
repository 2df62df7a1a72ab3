"""A text of the course in English, optionally translated to Japanese.

In its own module, not in `lessons.model`, so that the course view's outline (`lessons.outline`)
can hold lesson titles without importing the whole lesson model at start-up.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LocalText:
    """A Markdown text in English, optionally translated to Japanese."""

    en: str
    ja: str | None = None

    def get(self, lang: str) -> str:
        """The text in `lang` ("en" or "ja"), falling back to English."""
        if lang == "ja" and self.ja:
            return self.ja
        return self.en
