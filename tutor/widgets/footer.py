"""The key bar at the bottom, in the learner's language.

One Static redrawn from the screen's active bindings, instead of Textual's `Footer` (a widget per
key, all rebuilt and restyled on every focus change, which made each step change slow).
Bindings carry i18n keys as descriptions; clicking a key runs its action, like Textual's footer.
"""
from __future__ import annotations

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.widgets import Static

from tutor.i18n import t


def declared_bindings(node) -> list[Binding]:
    """The keys `node`'s class declares (`BINDINGS` along its bases, a subclass's key replacing its base's),
    whether or not a focused editor keeps the key for typing now (`active_bindings` leaves those out)."""
    keys: dict[str, list[Binding]] = {}
    for base in reversed(type(node).__mro__):
        declared: dict[str, list[Binding]] = {}
        for binding in Binding.make_bindings(base.__dict__.get("BINDINGS", [])):
            declared.setdefault(binding.key, []).append(binding)
        keys.update(declared)
    return [binding for bindings in keys.values() for binding in bindings]


class TutorFooter(Static):
    """Shows `key description` for every shown binding; disabled ones are dimmed."""

    COMPONENT_CLASSES = {"tutor-footer--key", "tutor-footer--disabled"}

    DEFAULT_CSS = """
    TutorFooter {
        dock: bottom;
        height: 1;
        background: $footer-background;
        color: $footer-foreground;
    }
    TutorFooter > .tutor-footer--key {
        color: $footer-key-foreground;
        text-style: bold;
    }
    TutorFooter > .tutor-footer--disabled {
        color: $text-disabled;
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._spans: list[tuple[int, int, object, str]] = []  # (start, end, node, action)
        self._shown: Text | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)
        self.bindings_changed(self.screen)

    def bindings_changed(self, screen) -> None:
        if screen is not self.screen:
            return
        lang = getattr(self.app, "lang", "en")
        key_style = self.get_component_rich_style("tutor-footer--key")
        disabled_style = self.get_component_rich_style("tutor-footer--disabled")
        text, spans, seen = Text(no_wrap=True, overflow="ellipsis"), [], set()
        for node, binding, enabled, _tooltip in screen.active_bindings.values():
            if not (binding.show and binding.description) or binding.action in seen:
                continue
            seen.add(binding.action)
            start = len(text)
            text.append(f" {self.app.get_key_display(binding)} ", style=key_style if enabled else disabled_style)
            text.append(f"{t(binding.description, lang)} ", style="" if enabled else disabled_style)
            if enabled:
                spans.append((start, len(text), node, binding.action))
        self._spans = spans
        if text != self._shown:  # the bindings signal fires on every focus change, mostly with no change here
            self._shown = text
            self.update(text, layout=False)  # one docked line: its size never depends on the keys

    async def on_click(self, event: events.Click) -> None:
        offset = event.x
        for start, end, node, action in self._spans:
            if start <= offset < end:
                await self.app.run_action(action, node)
                return
