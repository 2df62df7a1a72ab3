"""The keys of the screen underneath, in the learner's language (`?` / F1)."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tutor.i18n import STRINGS, t
from tutor.widgets.footer import declared_bindings


class HelpScreen(ModalScreen[None]):
    """Lists each binding of `screen` (and the app's) that has a description."""

    # Its own styles, parsed the first time it is shown (not with the app's at every start-up).
    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
        background: $background 60%;
    }
    HelpScreen #dialog {
        width: 64;
        max-width: 95%;
        height: auto;
        max-height: 90%;
        padding: 1 2;
        border: thick $accent;
        background: $surface;
    }
    HelpScreen #help-title, HelpScreen #help-intro {
        margin-bottom: 1;
    }
    HelpScreen #help-intro {
        margin-top: 1;
        color: $text-muted;
    }
    """

    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss", "close")]

    def __init__(self, screen) -> None:
        super().__init__()
        self.answering = hasattr(screen, "view")  # a lesson or a quiz: say how to type answers
        own = declared_bindings(screen)
        active = [binding for _node, binding, _enabled, _tooltip in screen.active_bindings.values()]
        # the screen's own keys too while an editor keeps the letters for typing (Esc gives them back)
        # only keys the catalogue words (Textual's own too): an untranslated description would be English in Japanese
        self.bindings = [(self.app.get_key_display(binding), binding.description)
                         for binding in own + active if binding.description in STRINGS["en"]]

    def compose(self) -> ComposeResult:
        lang = self.app.lang
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        seen = set()
        for key, description in self.bindings:
            if (key, description) not in seen:
                seen.add((key, description))
                table.add_row(key, t(description, lang))
        with VerticalScroll(id="dialog"):
            yield Static(Text.assemble((t("help_title", lang), "bold")), id="help-title")
            yield Static(table)
            yield Static(t("help_intro", lang), id="help-intro")
            if self.answering:
                yield Static(Text.assemble((t("help_answering_title", lang), "bold")), id="help-answering-title")
                yield Static(t("help_answering", lang), id="help-answering", markup=False)

    async def action_dismiss(self, result=None) -> None:
        self.dismiss(None)
