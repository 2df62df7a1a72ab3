"""The tutor process of one connected student: `python -m tutor.classroom.student_app`.

The server starts one per browser connection (textual-serve runs it with Textual's web driver) and
passes everything in the environment, never on a command line a shell would read:
AUTOGRAD_TUTOR_DATA_DIR (the student's folder in the class folder), AUTOGRAD_TUTOR_STUDENT (the name
shown in the title bar), AUTOGRAD_TUTOR_LANG, AUTOGRAD_TUTOR_CLASS_LESSONS (the class's lesson
folders, os.pathsep-separated) and AUTOGRAD_TUTOR_CLASS_BUNDLED ("0": not the bundled course; see
`offer`). The app opens where the student left off. Like every tutor
process, it starts its own sandbox worker: snippets run confined, with the runner's limits.

A page that comes back (a reload, "Use it here") may find this tutor still running: the server then
sends it the `attach` meta message (`ATTACH`), and the new page's empty terminal gets the terminal modes
and the whole screen again (`StudentDriver`).
"""
from __future__ import annotations

import os

from textual.drivers.web_driver import WebDriver
from textual.message import Message

WARM_UP_DELAY = 3.0  # seconds after the course view before this student's sandbox worker starts
ATTACH = "attach"  # the server's meta message: a new page is attached to this running tutor


class PageAttached(Message):
    """A new page now shows this tutor: it needs the terminal modes and the whole screen again."""

    def __init__(self, driver: StudentDriver) -> None:
        super().__init__()
        self.driver = driver


class StudentDriver(WebDriver):
    """Textual's web driver, plus `ATTACH`: handled in the app's thread (`PageAttached`), never in the input
    thread, so that the modes cannot interleave with a frame on the way out."""

    def on_meta(self, packet_type: str, payload: dict[str, object]) -> None:
        if packet_type == ATTACH:
            self.send_message(PageAttached(self))
        else:
            super().on_meta(packet_type, payload)

    def set_terminal_modes(self) -> None:
        """The modes `start_application_mode` gives a new terminal: the alternate screen, mouse reporting, no
        cursor, bracketed paste."""
        self.write("\x1b[?1049h")
        self._enable_mouse_support()
        self.write("\x1b[?25l")
        self._enable_bracketed_paste()


def make_app(environ=None, *, warm_up: bool = True):
    """A student's tutor; `warm_up=False` (the zygote's copy) never starts a sandbox worker ahead of time."""
    from tutor.app import TutorApp
    from tutor.paths import ENV_VAR

    class StudentApp(TutorApp):
        def _start_warm_up(self) -> None:
            """A class opens the page at the same moment: let every student's course view be drawn
            before the sandbox workers (numpy, sympy: about a second of CPU each) start. A lesson
            opened sooner starts the worker itself. The timer is set here, on the app's loop: the
            warm-up thread has no loop to set it on."""
            if warm_up:
                self.set_timer(WARM_UP_DELAY, super()._start_warm_up)

        def get_driver_class(self):
            driver = super().get_driver_class()
            return StudentDriver if driver is WebDriver else driver

        def on_page_attached(self, message: PageAttached) -> None:
            message.driver.set_terminal_modes()
            self.screen.refresh()  # the whole screen: the new page's terminal is empty

    environ = os.environ if environ is None else environ
    lessons, bundled = class_lessons(environ)
    lang = environ.get("AUTOGRAD_TUTOR_LANG")
    app = StudentApp(lang=lang if lang in ("en", "ja") else None, extra_dirs=lessons, data_dir=environ.get(ENV_VAR),
                     include_bundled=bundled, start="resume")
    name = environ.get("AUTOGRAD_TUTOR_STUDENT", "")
    if name:
        app.title = f"autograd-tutor — {name}"
    return app


def class_lessons(environ) -> tuple[list[str], bool]:
    """The class's lesson folders and whether the bundled course is part of it, as the server set them."""
    folders = [folder for folder in environ.get("AUTOGRAD_TUTOR_CLASS_LESSONS", "").split(os.pathsep) if folder]
    return folders, environ.get("AUTOGRAD_TUTOR_CLASS_BUNDLED", "1") != "0"


def main() -> None:
    """Run the student's tutor; once it has quit, end the process at once: every answer is already its own
    committed transaction and the store closed (`TutorApp.on_unmount`), and the sandbox worker ends when
    its input closes with this process. Finalising the interpreter would only make a student coming back
    (whose new tutor waits for this one to end) wait longer."""
    import sys

    app = make_app()
    try:
        app.run()
    finally:
        for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            try:
                stream.flush()
            except (AttributeError, OSError, ValueError):
                pass
    os._exit(app.return_code or 0)


if __name__ == "__main__":
    main()
