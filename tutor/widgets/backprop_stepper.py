"""Backward, one node at a time: the cotangent arriving, the local rule, what flows to each input (for dual
numbers, forward mode one op at a time, in program order)."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from tutor.i18n import t
from tutor.untrusted import text


class BackpropStepper(Vertical, can_focus=True):
    """Shows one trace step at a time; ←/→ (or p/n) move through the nodes in backward's order.

    `calls` are the program's backward calls (each with `index`, `line` and `trace`, the rendered
    steps); the nodes of all calls are stepped through in order, and when there are several calls the
    position names the call a node belongs to ("backward call 2 (line 7) · node 3 of 5")."""

    BINDINGS = [
        Binding("right,n", "move(1)", "step_forward"),
        Binding("left,p", "move(-1)", "step_back"),
    ]

    def __init__(self, calls: list, **kwargs) -> None:
        super().__init__(**kwargs)
        self.calls = calls
        self.position = 0

    @property
    def steps(self) -> list:
        """(call, index in the call, rendered step) for every node of every call, in order."""
        return [(call, i, step) for call in self.calls for i, step in enumerate(call.trace)]

    def compose(self) -> ComposeResult:
        # the content is given at compose time: a stepper removed again at once (a language switch
        # remakes the panels) must not look for children it never got
        yield Static(text(self._position_text()), id="trace-position")
        with VerticalScroll():
            yield Static(self.steps[self.position][2] if self.steps else text(t("trace_none", self.app.lang)),
                         id="trace-step")

    def _position_text(self) -> str:
        if not self.steps:  # forward mode, a returned Jacobian, several outputs at once: no sweep to follow
            return ""
        call, i, _ = self.steps[self.position]
        lang = self.app.lang
        forward = "_forward" if getattr(call, "forward", False) else ""   # dual numbers: ops in program order
        if len(self.calls) == 1:
            text = t("trace_position" + forward, lang, index=i + 1, total=len(call.trace))
        else:
            text = t("trace_position_call" + forward, lang, call=call.index + 1, line=call.line or "?", index=i + 1,
                     total=len(call.trace))
        return text + "   ← →"

    def set_calls(self, calls: list) -> None:
        """The same calls laid out again (another width): the position is kept."""
        self.calls = calls
        self.position = max(0, min(self.position, len(self.steps) - 1))
        self.show()

    def show(self) -> None:
        self.query_one("#trace-position", Static).update(text(self._position_text()))
        self.query_one("#trace-step", Static).update(self.steps[self.position][2] if self.steps
                                                     else text(t("trace_none", self.app.lang)))

    def action_move(self, offset: int) -> None:
        self.position = max(0, min(self.position + offset, len(self.steps) - 1))
        self.show()
