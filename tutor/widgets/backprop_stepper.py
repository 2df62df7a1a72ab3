"""Backward, one node at a time: the cotangent arriving, the local rule, what flows to each input."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from tutor.i18n import t


class BackpropStepper(Vertical, can_focus=True):
    """Shows one trace step at a time; ←/→ (or p/n) move through the nodes in backward's order."""

    BINDINGS = [
        Binding("right,n", "move(1)", "step_forward"),
        Binding("left,p", "move(-1)", "step_back"),
    ]

    def __init__(self, steps: list, **kwargs) -> None:
        super().__init__(**kwargs)
        self.steps = steps  # rich renderables, one per node, from engine.explain
        self.position = 0

    def compose(self) -> ComposeResult:
        # the content is given at compose time: a stepper removed again at once (a resize or a language
        # switch remakes the panels) must not look for children it never got
        yield Static(self._position_text(), id="trace-position")
        with VerticalScroll():
            yield Static(self.steps[self.position], id="trace-step")

    def _position_text(self) -> str:
        return t("trace_position", self.app.lang, index=self.position + 1, total=len(self.steps)) + "   ← →"

    def show(self) -> None:
        self.query_one("#trace-position", Static).update(self._position_text())
        self.query_one("#trace-step", Static).update(self.steps[self.position])

    def action_move(self, offset: int) -> None:
        self.position = max(0, min(self.position + offset, len(self.steps) - 1))
        self.show()
