"""The tutor in a real terminal (a tmux pane) opening every hostile lesson, the Reset dialog, answers shown and
every explanation tab: the bytes the program wrote (recorded by `script`) carry no payload, the pane's title
was never set by a lesson and no tmux buffer was created (OSC 52 is accepted by this tmux server), while the
attacks are on screen in their visible form (␛]0;…␇)."""
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from boundary_checks import HOSTILE

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None or shutil.which("script") is None,
                                reason="needs tmux and script (util-linux) for a real terminal")

TUTOR = Path(sys.executable).with_name("autograd-tutor")
WAIT = 90.0  # seconds a screen may take on a loaded machine (the sandbox, the explanation)
CHANGE = 6.0  # seconds a key may take to show its effect (a key with no visible effect waits this long)
PAYLOADS = (b"\x1b]0;PWNED", b"\x1b]2;PWNED", b"\x1b]52;", b"\x1b]8;", b"\xc2\x9b")


class Pane:
    """One tmux server of our own (its own socket, no user configuration) with one 120x40 pane."""

    def __init__(self, command: str, folder: Path) -> None:
        self.socket = f"boundary-{uuid.uuid4().hex[:12]}"
        config = folder / "tmux.conf"
        # a 120x40 window without a client; an OSC 52 from the program would make a tmux buffer
        config.write_text("set -g default-size 120x40\nset -g set-clipboard on\n")
        self.tmux("-f", str(config), "new-session", "-d", "-s", "t", "-x", "120", "-y", "40", command)

    def tmux(self, *args: str) -> str:
        """Run a tmux command on this server; its output."""
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30).stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "t")

    def wait_for(self, text: str) -> str:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            shown = self.screen()
            if text in shown:
                return shown
            time.sleep(0.3)
        raise AssertionError(f"{text!r} never appeared; the pane shows:\n{self.screen()}")

    def press(self, *keys: str, settle: float = 0.6) -> None:
        """Each key once the screen shows the previous one's effect: a key sent while the app is busy would
        reach it in one read with the next, and Escape then a key reads as Alt+key."""
        for key in keys:
            before = self.tmux("capture-pane", "-e", "-p", "-t", "t")  # with colours: a focus change shows
            self.tmux("send-keys", "-t", "t", key)
            time.sleep(settle)
            deadline = time.monotonic() + CHANGE
            while self.tmux("capture-pane", "-e", "-p", "-t", "t") == before and time.monotonic() < deadline:
                time.sleep(0.2)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=30)


def explain_all_tabs(pane: Pane) -> None:
    """On a predict step, out of its field: a hint, the answer shown, every tab of the explanation, back."""
    pane.press("h", "s", "e")
    pane.wait_for("Jacobian")
    for tab in "23456":
        pane.press(tab, settle=1.0)
    pane.press("Escape", "Escape", settle=1.0)


def test_a_real_terminal_gets_no_escape_from_any_lesson(tmp_path):
    record = tmp_path / "typescript"
    command = (f"env -u COLUMNS -u LINES AUTOGRAD_TUTOR_DATA_DIR={tmp_path / 'data'} TERM=xterm-256color LANG=C.UTF-8 "
               f"script -q -f -c '{TUTOR} --lessons {HOSTILE} --trust-lessons' {record}")
    pane = Pane(command, tmp_path)
    try:
        pane.wait_for("Course")
        pane.press("/")
        pane.tmux("send-keys", "-t", "t", "-l", "hostile")  # the filter: only the hostile lessons are listed
        pane.press("Enter")
        pane.wait_for("Reset me")
        pane.press("r")
        pane.wait_for("Reset your progress")
        pane.press("n")
        pane.press("Enter")  # the hostile title's lesson
        pane.wait_for("A plain step")
        pane.press("Escape", settle=1.0)
        pane.press("Down", "Enter")  # read-step text
        shown = pane.wait_for("Clipboard")
        assert "␛]52;c;UFdORUQtQ0xJUA==␇" in shown and "(https://evil.example/PWNED-LINK)" in shown
        pane.press("Escape", settle=1.0)
        pane.press("Down", "Enter")  # printed output, then its predict step
        pane.wait_for("PWNED-PRINT")
        pane.press("Enter")
        for _ in range(3):  # the printed output's predict step, the expression, the explanation's program text
            pane.wait_for("Predict")
            pane.press("Escape")
            explain_all_tabs(pane)
            pane.press("Down", "Enter")
        pane.wait_for("What happens")  # error labels and choices
        pane.press("Escape", "s", "n")
        pane.wait_for("Pick one")
        pane.press("Escape", "s", "Escape", settle=1.0)
        assert "PWNED" not in pane.tmux("display-message", "-p", "-t", "t", "#{pane_title}")
        assert pane.tmux("list-buffers") == ""  # no OSC 52 reached tmux
        pane.press("C-q")
        deadline = time.monotonic() + WAIT
        while pane.tmux("list-sessions") and time.monotonic() < deadline:
            time.sleep(0.3)
    finally:
        pane.close()
    written = record.read_bytes()
    for payload in PAYLOADS:
        assert payload not in written, payload
    assert "␛]0;PWNED-TITLE␇".encode() in written and "␛]0;PWNED-PRINT␇".encode() in written
    assert "[@click=app.quit]".encode() in written
