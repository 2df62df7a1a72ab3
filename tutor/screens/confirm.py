"""A yes/no question over the current screen (resetting a lesson asks first); the question is plain text."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tutor.i18n import t
from tutor.untrusted import text


class ConfirmScreen(ModalScreen[bool]):
    """Dismisses with True for yes; Escape or n means no."""

    # Its own styles, parsed the first time it is shown (not with the app's at every start-up).
    DEFAULT_CSS = """
    ConfirmScreen {
        align: center middle;
        background: $background 60%;
    }
    ConfirmScreen #dialog {
        width: 60;
        max-width: 90%;
        height: auto;
        padding: 1 2;
        border: thick $error;
        background: $surface;
    }
    ConfirmScreen #buttons {
        height: auto;
        align-horizontal: right;
        margin-top: 1;
    }
    ConfirmScreen Button {
        margin-left: 2;
    }
    ConfirmScreen #yes {  /* by id: Button's own `.-style-default.-error` (hover, active) outranks a class here */
        background: $danger-background;
    }
    """

    BINDINGS = [
        Binding("y", "answer(True)", "yes"),
        Binding("n,escape", "answer(False)", "no"),
        Binding("left,right", "switch", show=False),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        lang = self.app.lang
        with Vertical(id="dialog"):
            yield Static(text(self.question), id="question")  # holds a lesson title: never markup
            with Horizontal(id="buttons"):
                yield Button(t("yes", lang), id="yes", variant="error")
                yield Button(t("no", lang), id="no", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_switch(self) -> None:
        """The arrow keys move between the two buttons, as in any dialog."""
        self.query_one("#no" if self.focused is self.query_one("#yes") else "#yes", Button).focus()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
