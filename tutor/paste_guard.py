"""A paste reaches the app whole, even with escape sequences in it.

Textual's input parser (8.x) takes an ESC inside a bracketed paste for the start of a key sequence: the characters
after it leave the paste and arrive as key presses, ESC as "^" and a line end as Enter. A coloured printout pasted
into the answer field in a real terminal was graded half-pasted ("Use ** for powers"; the pilot's `Paste` event
never goes through the parser). Here the paste's content is cleaned as every typed answer is
(`tutor.untrusted.typed`: sequences removed whole) before the parser reads it; its two markers stay.
"""
from __future__ import annotations

import time

from textual._xterm_parser import XTermParser
from textual.drivers import linux_driver

from tutor.untrusted import typed

START, END = "\x1b[200~", "\x1b[201~"  # bracketed paste's markers


class PasteCleaner:
    """Input as it is read, with escape sequences inside each bracketed paste removed. A marker or a sequence split
    between two reads is held back until the next read: a start marker's beginning (or until `release`), or in a paste
    all from its last ESC on (its end marker is still to come)."""

    def __init__(self) -> None:
        self.pasting = False
        self.held = ""
        self.since = 0.0  # when `held` was last held back

    def release(self, after: float = 0.05) -> str:
        """Held input outside a paste, once it has waited `after` seconds for the rest of a start marker that did not
        come (an Escape key press is not kept from the parser)."""
        if not self.held or self.pasting or time.monotonic() - self.since < after:
            return ""
        held, self.held = self.held, ""
        return held

    def __call__(self, data: str) -> str:
        data, self.held = self.held + data, ""
        self.since = time.monotonic()
        out: list[str] = []
        while data:
            if not self.pasting:
                at = data.find(START)
                if at < 0:
                    split = next((n for n in range(len(START) - 1, 0, -1) if data.endswith(START[:n])), 0)
                    out.append(data[:len(data) - split])
                    self.held = data[len(data) - split:]
                    break
                out.append(data[:at + len(START)])
                data, self.pasting = data[at + len(START):], True
                continue
            at = data.find(END)
            if at < 0:
                cut = data.rfind("\x1b")
                if cut >= 0:
                    data, self.held = data[:cut], data[cut:]
                out.append(typed(data))
                break
            out.append(typed(data[:at]) + END)
            data, self.pasting = data[at + len(END):], False
        return "".join(out)


class PasteCleaningParser(XTermParser):
    """Textual's parser, fed through a `PasteCleaner`."""

    def __init__(self, debug: bool = False) -> None:
        super().__init__(debug)
        self._clean = PasteCleaner()

    def feed(self, data: str):
        if not data:  # the end of input
            return super().feed(data)
        cleaned = self._clean(data)
        return super().feed(cleaned) if cleaned else ()  # (all of it held back: "" would be the end of input)

    def tick(self):
        """The parser's timeouts, after any input held back too long (the driver ticks every 0.1 s)."""
        held = self._clean.release()
        if held:
            yield from super().feed(held)
        yield from super().tick()


class PasteCleaningDriver(linux_driver.LinuxDriver):
    """The Linux/macOS terminal driver, reading its input with `PasteCleaningParser` (the one name its input thread
    looks up for its parser)."""

    def run_input_thread(self) -> None:
        linux_driver.XTermParser = PasteCleaningParser
        super().run_input_thread()
