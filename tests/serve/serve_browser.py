"""Driving `autograd-tutor serve` from a real headless Chromium (Playwright, the system's browser).

Shared by tests/serve and benchmarks/serve.py. Playwright never downloads a browser here: it
launches Debian's `chromium` ($AUTOGRAD_TUTOR_CHROMIUM, else /usr/bin/chromium or `chromium` on
PATH). The terminal is drawn on a canvas, so to read what a student sees, an init script keeps the
text of everything the server sent over the page's WebSocket (escape sequences removed).
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]

# Kept in window.__tutorText: the terminal output of the current page, as plain text.
TERMINAL_TEXT = r"""
(() => {
  const Native = window.WebSocket;
  const decoder = new TextDecoder();
  window.__tutorText = "";
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        if (typeof event.data === "string") return;
        const text = decoder.decode(new Uint8Array(event.data), {stream: true});
        window.__tutorText += text.replace(/\x1b\[[0-9;?<>=]*[ -\/]*[@-~]/g, "")
                                  .replace(/\x1b[\]P_^][^\x07\x1b]*(\x07|\x1b\\)/g, "");
      });
    }
  };
})();
"""


def chromium_path() -> str | None:
    chosen = os.environ.get("AUTOGRAD_TUTOR_CHROMIUM")
    for candidate in ([chosen] if chosen else ["/usr/bin/chromium", shutil.which("chromium")]):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def why_no_browser() -> str | None:
    """None when the browser tests can run, else the reason they are skipped."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install -e '.[test]')"
    if chromium_path() is None:
        where = os.environ.get("AUTOGRAD_TUTOR_CHROMIUM") or "/usr/bin/chromium or on PATH"
        return f"no Chromium at {where} (apt-get install chromium fonts-noto-cjk, or set AUTOGRAD_TUTOR_CHROMIUM)"
    return None


def launch(playwright):
    return playwright.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ServedClass:
    """`autograd-tutor serve` in a child process, on a free local port, importing this checkout."""

    def __init__(self, class_dir: Path, *options: str, env: dict[str, str] | None = None, root: Path = ROOT) -> None:
        """`root`: the checkout whose code serves (the benchmark compares another one, side by side)."""
        self.class_dir = class_dir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
                   PYTHONUNBUFFERED="1", COLUMNS="120", **(env or {}))
        self.log = open(class_dir.parent / "serve.log", "w+", encoding="utf-8")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tutor", "--lang", "en", "serve", "--port", str(self.port), "--class-dir",
             str(class_dir), *options], cwd=root, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server stopped: {self.output()}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=2):
                    return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the server did not answer in 60 s: {self.output()}")

    def output(self) -> str:
        self.log.flush()
        return Path(self.log.name).read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()

    def student_pids(self) -> dict[str, int]:
        """Tutor processes of this server's students, by data folder name (see `students`)."""
        return {key: tutor for key, (_launcher, tutor) in self.students().items()}

    def students(self) -> dict[str, tuple[int, int]]:
        """(launcher, tutor) process ids of this server's students, by data folder name. textual-serve
        starts the launcher (it has the student's environment); the tutor is the zygote's child that
        shares its stdin pipe, or the launcher itself when it ran the tutor without the zygote."""
        found = {}
        zygote = self.zygote_pid()
        tutors = {_stdin(pid): pid for pid in _children(zygote)} if zygote else {}
        for pid in _children(self.process.pid):
            try:
                environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            except OSError:
                continue
            for item in environ:
                if item.startswith(b"AUTOGRAD_TUTOR_DATA_DIR="):
                    found[Path(item.split(b"=", 1)[1].decode()).name] = (pid, tutors.get(_stdin(pid), pid))
        return found

    def zygote_pid(self, program: bytes = b"tutor.classroom.zygote") -> int | None:
        for pid in _children(self.process.pid):
            try:
                if program in Path(f"/proc/{pid}/cmdline").read_bytes():
                    return pid
            except OSError:
                continue
        return None

    def warm_worker_pid(self) -> int | None:
        """The warm snippet worker the students' workers are forked from (`tutor.classroom.sandbox`)."""
        return self.zygote_pid(b"tutor/classroom/sandbox.py")


def _children(parent: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if _parent(entry) == parent:
                    found.append(int(entry.name))
            except (OSError, ValueError, IndexError):
                continue
    return found


def _stdin(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/fd/0")
    except OSError:
        return None


def _parent(entry: Path) -> int:
    return int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])


def terminal_text(page) -> str:
    """What the page's terminal has shown so far ("" while the page is being replaced: a reload, the
    class-full page asking again by itself)."""
    from playwright.sync_api import Error

    try:
        return page.evaluate("() => window.__tutorText || ''")
    except Error as error:
        if "context was destroyed" in str(error) or "navigat" in str(error):
            return ""
        raise


def wait_for_text(page, text: str, seconds: float = 60.0) -> float:
    """Wait until the student's terminal has shown `text`; returns the seconds it took."""
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        if text in terminal_text(page):
            return time.monotonic() - start
        time.sleep(0.05)
    tail = terminal_text(page)[-1500:]
    raise AssertionError(f"{text!r} did not show in {seconds} s; the terminal ended with:\n{tail}")


def join(page, url: str, name: str, *, code: str | None = None, lang: str = "en", screenshot=None) -> None:
    page.goto(url + f"/?lang={lang}")
    page.fill("#name", name)
    if code is not None:
        page.fill("#code", code)
    page.check(f"input[name=lang][value={lang}]")
    if screenshot is not None:
        page.screenshot(path=screenshot)
    page.click("#start-button")
    page.wait_for_load_state("domcontentloaded")
    if page.query_selector("#personal-code") is not None:  # a new student: their personal code, shown once
        if screenshot is not None:
            page.screenshot(path=Path(screenshot).with_name(Path(screenshot).stem + "-welcome.png"))
        page.click("#continue")
        page.wait_for_load_state("domcontentloaded")


def press(page, *keys: str) -> None:
    """Type into the terminal (its hidden text area has the keyboard focus in a real browser too)."""
    page.focus(".xterm-helper-textarea")
    for key in keys:
        page.keyboard.press(key)
