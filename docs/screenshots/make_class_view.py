"""Regenerate class-view-en.png and class-view-ja.png: the Class screen (`autograd-tutor class view`) of a class,
as a teacher sees it, drawn by a real browser.

    .venv/bin/python docs/screenshots/make_class_view.py CLASS_DIR

Runs `autograd-tutor --lang LANG class view --class-dir CLASS_DIR` under textual-serve (the Textual team's
server: the terminal drawn by xterm.js) and photographs the page in the system's headless Chromium, with
Playwright (tests/serve/serve_browser.py: /usr/bin/chromium or $AUTOGRAD_TUTOR_CHROMIUM). The browser draws
Japanese with the computer's own CJK font, which an SVG export does not do faithfully. The pictures in
docs/classroom.md are of a class served `--only` a one-lesson pack, four students in it.
"""
import shlex
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests" / "serve"))

from serve_browser import TERMINAL_TEXT, free_port, launch, terminal_text  # noqa: E402

SERVE = "from textual_serve.server import Server; import sys; Server(sys.argv[1], port=int(sys.argv[2])).serve()"


def photograph(class_dir: Path, lang: str, target: Path) -> None:
    from playwright.sync_api import sync_playwright

    port = free_port()
    command = shlex.join([sys.executable, "-m", "tutor", "--lang", lang, "class", "view", "--class-dir", str(class_dir)])
    server = subprocess.Popen([sys.executable, "-c", SERVE, command, str(port)], cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            context = browser.new_context(viewport={"width": 1240, "height": 760}, locale=lang)
            context.add_init_script(TERMINAL_TEXT)
            page = context.new_page()
            deadline = time.monotonic() + 60
            while True:
                try:
                    page.goto(f"http://127.0.0.1:{port}/")
                    break
                except Exception:  # noqa: BLE001 - the server is still starting
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.5)
            while "%" not in terminal_text(page) and time.monotonic() < deadline:  # the plot's title: all drawn
                time.sleep(0.3)
            time.sleep(1.5)
            page.screenshot(path=target)
            browser.close()
    finally:
        server.terminate()
        server.wait(20)


def main() -> None:
    class_dir = Path(sys.argv[1]).resolve()
    for lang in ("en", "ja"):
        target = HERE / f"class-view-{lang}.png"
        photograph(class_dir, lang, target)
        print(f"wrote {target}")


if __name__ == "__main__":
    main()
