"""Shown instead of the app while the terminal is smaller than the layouts can hold."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from tutor.i18n import t
from tutor.min_size import MIN_HEIGHT, MIN_WIDTH


class TooSmallScreen(Screen[None]):
    """The app pushes this on a resize below the minimum and pops it when the window grows."""

    # Its own styles, parsed the first time it is shown (not with the app's at every start-up).
    DEFAULT_CSS = """
    TooSmallScreen {
        align: center middle;
    }
    TooSmallScreen #too-small-message {
        width: 100%;
        content-align: center middle;
        text-align: center;
        text-style: bold;
        color: $warning;
    }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="too-small-message")

    def on_mount(self) -> None:
        self.show_size(*self.app.size)

    def show_size(self, width: int, height: int) -> None:
        self.query_one("#too-small-message", Static).update(
            Text(t("too_small", self.app.lang, width=MIN_WIDTH, height=MIN_HEIGHT, now_width=width, now_height=height))
        )
