"""A paste reaches the app whole, even with escape sequences in it.

Textual's input parser (8.x) takes an ESC inside a bracketed paste for the start of a key sequence: the characters
after it leave the paste and arrive as key presses, ESC as "^" and a line end as Enter. A coloured printout pasted
into the answer field in a real terminal was graded half-pasted ("Use ** for powers"; the pilot's `Paste` event
never goes through the parser). Here the paste's content is cleaned as every typed answer is
(`tutor.untrusted.typed`: sequences removed whole) before the parser reads it; its two markers stay.

The guard is built on Textual's private parser (`textual._xterm_parser.XTermParser`, the name `linux_driver`'s
input thread looks up). A Textual that moves it makes importing this module raise ImportError, and the app falls
back to the plain driver (`tutor.app.TutorApp.get_driver_class`): a coloured paste arrives in pieces again, but the
tutor starts. `tests/boundary/test_paste_guard.py` simulates both moves.
"""
from __future__ import annotations

from textual._xterm_parser import XTermParser  # (ImportError when moved: the app falls back)
from textual.drivers import linux_driver

from tutor.untrusted import typed

if getattr(linux_driver, "XTermParser", None) is not XTermParser:  # its input thread would never read with ours
    raise ImportError("paste guard: textual.drivers.linux_driver no longer reads its input with XTermParser")

START, END = "\x1b[200~", "\x1b[201~"  # bracketed paste's markers


class PasteCleaner:
    """Input as it is read, with escape sequences inside each bracketed paste removed. Outside a paste everything passes
    at once (an Escape key press is never held back); the last characters passed are kept to see a start marker split
    between two reads. Inside a paste, all from its last ESC on waits for the next read (its end marker is to come)."""

    def __init__(self) -> None:
        self.pasting = False
        self.held = ""   # in a paste: from its last ESC on, not yet passed
        self.seen = ""   # outside a paste: the end of what was passed, a start marker's beginning perhaps

    def __call__(self, data: str) -> str:
        data, self.held = self.held + data, ""
        out: list[str] = []
        while data:
            if not self.pasting:
                seen = self.seen + data
                at = seen.find(START)
                if at < 0:
                    out.append(data)
                    self.seen = seen[-(len(START) - 1):]
                    break
                end = at + len(START) - len(self.seen)  # (> 0: a whole marker in `seen` was found before)
                out.append(data[:end])
                data, self.pasting, self.seen = data[end:], True, ""
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


class PasteCleaningDriver(linux_driver.LinuxDriver):
    """The Linux/macOS terminal driver, reading its input with `PasteCleaningParser` (the one name its input thread
    looks up for its parser)."""

    def run_input_thread(self) -> None:
        linux_driver.XTermParser = PasteCleaningParser
        super().run_input_thread()
