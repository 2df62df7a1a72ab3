"""A footer that shows key descriptions in the learner's language."""
from __future__ import annotations

from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from tutor.i18n import t


class TutorFooter(Footer):
    """Bindings carry i18n keys as descriptions; this footer translates them when it composes."""

    def compose(self):
        lang = getattr(self.app, "lang", "en")
        for widget in super().compose():
            if isinstance(widget, FooterKey) and widget.description:
                widget.description = t(widget.description, lang)
            yield widget
