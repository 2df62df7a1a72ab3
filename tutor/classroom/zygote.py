"""A pre-imported fork server ("zygote") for the students' tutor processes of `autograd-tutor serve`.

Starting Python and importing Textual and the tutor costs each student's process about a third of
a second of CPU; when a whole class opens the page at once, that is what they wait for. So the
server starts one zygote that imports all of it once (`PRELOAD`: never numpy, sympy or the engine,
which the tutor imports later, in its sandbox worker), parses the bundled course once (the children
find it in `lessons.parse_cache`'s in-process store) and then only forks:

- per connection, textual-serve runs `tutor/classroom/launcher.py` (stdlib only, `python -I -S`),
  which sends its stdin, stdout and stderr (SCM_RIGHTS) and its environment over the zygote's Unix
  socket (in a private 0700 directory);
- the zygote forks a child that takes over those descriptors and that environment, and runs
  `student_app.main()` as `python -m tutor.classroom.student_app` would. The child first writes
  `PID_LINE` with its own pid on stdout, so the server knows the real tutor process;
- the zygote tells the launcher the child's pid, the launcher answers "go" (after which it
  forwards SIGTERM, SIGINT and SIGHUP to the child), and when the child ends, the zygote reaps it
  and sends its exit status, which the launcher exits with.

If the launcher dies (the server kills it with SIGKILL), the child sees the end of the connection
and kills itself. If the zygote cannot be reached, the launcher runs the student app itself. The
zygote ends with the server: when its stdin (a pipe from the server) closes.

Protocol on the socket (launcher -> zygote): a 4-byte big-endian length, then the current
directory and `NAME=value` items separated by NUL bytes, with fds 0, 1 and 2 attached; then `go`.
Zygote -> launcher: `pid N\\n`, later `exit N\\n` (N as `os.waitstatus_to_exitcode`: -signal if killed).
"""
from __future__ import annotations

import gc
import os
import selectors
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from tutor.classroom.launcher import PID_LINE

LAUNCHER = Path(__file__).with_name("launcher.py")
MAX_REQUEST = 1 << 20  # bytes of a launcher's environment
# What a student's process imports before its first screen: Textual's
# web driver, the app, the course screen and what it shows, the lesson loader, the progress store.
PRELOAD = (
    "tutor.classroom.student_app", "tutor.app", "tutor.screens.course", "tutor.screens.too_small",
    "tutor.widgets.footer", "tutor.widgets.inline_text", "tutor.widgets.japanese_wrap", "tutor.config",
    "tutor.problems", "tutor.progress.store", "lessons.course", "lessons.outline", "textual.drivers.web_driver",
    "textual.widgets._header", "textual.scrollbar", "textual.layouts.horizontal", "textual.layouts.stream",
    "textual.layouts.factory", "textual._xterm_parser", "textual._wrap",
)


# ---------------------------------------------------------------------------- in the server


class Zygote:
    """The server's handle on its zygote process: started with the server, stopped with it."""

    def __init__(self, environment: dict[str, str] | None = None, program: list[str] | None = None) -> None:
        self.environment = environment or {}  # the class's lessons (`offer`), parsed once in the zygote
        # what runs as the zygote, given the listening socket's fd as its last argument (another zygote of
        # the same protocol: `sandbox`); its environment is then `environment` alone
        self.program = program
        self.folder: Path | None = None
        self.process: subprocess.Popen | None = None
        self.socket_path: Path | None = None

    def start(self) -> None:
        """Listen on a socket in a private directory, then hand the listening socket to the zygote
        (a launcher that connects before the zygote has finished importing waits in the backlog)."""
        self.folder = Path(tempfile.mkdtemp(prefix="autograd-tutor-serve-"))  # mode 0700
        self.socket_path = self.folder / "zygote.sock"
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
                listener.bind(str(self.socket_path))
                listener.listen(128)
                program = self.program or [sys.executable, "-m", "tutor.classroom.zygote"]
                self.process = subprocess.Popen(
                    [*program, str(listener.fileno())],
                    pass_fds=(listener.fileno(),), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                    env=self.environment if self.program else {**os.environ, **self.environment},
                    cwd=os.path.abspath(os.sep) if self.program else None,
                    start_new_session=True)  # the teacher's Ctrl+C reaches the students through their launchers
        except BaseException:
            self.stop()
            raise

    @property
    def command(self) -> str:
        return f"exec {shlex.join(self.launcher())}"

    def launcher(self) -> list[str]:
        """The launcher's command: it hands its descriptors to this zygote (or, failing that, runs
        what is appended to this command, else the student app, itself)."""
        return [sys.executable, "-I", "-S", str(LAUNCHER), str(self.socket_path)]

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        if self.process is not None:
            self.process.stdin.close()  # the zygote's signal to stop; its children (students) go on
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


# ---------------------------------------------------------------------------- in the zygote


@dataclass
class Request:
    """A launcher's: its connection, its stdin/stdout/stderr, its directory and environment."""

    connection: socket.socket
    fds: list[int]
    cwd: bytes
    environ: dict[bytes, bytes]


def _read_request(connection: socket.socket) -> Request | None:
    connection.settimeout(5.0)  # a launcher sends its request at once; never hang the zygote on one
    fds: list[int] = []
    try:
        data, fds, _flags, _address = socket.recv_fds(connection, 65536, 3)
        size = int.from_bytes(data[:4], "big")
        if len(fds) != 3 or len(data) < 4 or size > MAX_REQUEST:
            raise ValueError("not a launcher's request")
        while len(data) < 4 + size:
            chunk = connection.recv(65536)
            if not chunk:
                raise ValueError("incomplete request")
            data += chunk
        cwd, *items = data[4:].split(b"\0")
        environ = dict(item.split(b"=", 1) for item in items if b"=" in item)
    except (OSError, ValueError):
        for fd in fds:
            os.close(fd)
        connection.close()
        return None
    connection.settimeout(None)
    return Request(connection, fds, cwd, environ)


def serve(listener: socket.socket) -> Request:
    """Fork a child per request until stdin closes. Returns only in a child, with the zygote's
    descriptors, handlers and sockets closed: the caller turns it into the student's tutor."""
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)  # a handler, so that the wake-up fd is written
    signal.set_wakeup_fd(wake_write)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(0, selectors.EVENT_READ, "server")
    selector.register(wake_read, selectors.EVENT_READ, "child")
    children: dict[int, socket.socket] = {}  # pid -> connection to its launcher
    while True:
        for key, _events in selector.select():
            if key.data == "server":
                if not os.read(0, 4096):
                    sys.exit(0)  # the server has gone or is stopping; running students keep their tutors
            elif key.data == "child":
                os.read(wake_read, 4096)
                _reap(children)
            else:
                try:
                    connection, _address = listener.accept()
                except OSError:
                    continue
                request = _read_request(connection)
                if request is None:
                    continue
                pid = os.fork()
                if pid == 0:
                    signal.set_wakeup_fd(-1)
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    selector.close()
                    os.close(wake_read)
                    os.close(wake_write)
                    for other in (listener, *children.values()):
                        other.close()
                    return request
                for fd in request.fds:
                    os.close(fd)
                children[pid] = request.connection
                _send(request.connection, b"pid %d\n" % pid)
        _reap(children)  # a SIGCHLD that arrived while a request was being read


def _reap(children: dict[int, socket.socket]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        connection = children.pop(pid, None)
        if connection is not None:
            _send(connection, b"exit %d\n" % os.waitstatus_to_exitcode(status))
            connection.close()


def _send(connection: socket.socket, data: bytes) -> None:
    try:
        connection.sendall(data)
    except OSError:
        pass  # the launcher is gone: its child ends on its own (see _become_student)


def _become_student(request: Request) -> None:
    """In the forked child: become the launcher's process (`take_over`), as a fresh student app."""
    take_over(request)
    _fresh_process_state()
    os.write(1, b"%s %d zygote\n" % (PID_LINE, os.getpid()))


def take_over(request: Request) -> None:
    """In the forked child: wait for the launcher's go, then take over its descriptors and environment."""
    connection = request.connection
    if connection.recv(2, socket.MSG_WAITALL) != b"go":  # the launcher gave up on us (and runs the app itself) or died
        os._exit(0)
    # The launcher is this process's stand-in for the server: when it is killed, this process ends too.
    threading.Thread(target=_end_with_launcher, args=(connection,), name="launcher-watch", daemon=True).start()
    for target, fd in enumerate(request.fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request.cwd)
    os.environb.clear()
    os.environb.update(request.environ)


def _end_with_launcher(connection: socket.socket) -> None:
    try:
        while connection.recv(64):
            pass
    except OSError:
        pass
    os.kill(os.getpid(), signal.SIGKILL)


def _fresh_process_state() -> None:
    """What a new `python -m tutor.classroom.student_app` would have that a fork does not."""
    import importlib
    import random

    import textual.constants

    import tutor.classroom.student_app as student_app

    random.seed()  # every child would otherwise draw the zygote's random numbers
    importlib.reload(textual.constants)  # Textual reads TEXTUAL_* (the web driver...) when it is imported
    sys.argv = [student_app.__file__]


def share_css_parses() -> None:
    """Keep Textual's parsed CSS for the whole process, not per stylesheet: Textual caches the rules it
    parsed in each `Stylesheet`, and every app (each student's tutor, forked from here) makes its own,
    and again whenever its theme is set, so each tutor would parse every screen's CSS anew (a third of
    its CPU to resume a lesson). Parsed rules are never changed once made (a stylesheet reuses them on
    every `parse`), and they depend only on the CSS text, where it came from and the theme's variables,
    which are all part of the key here."""
    from textual.css.stylesheet import Stylesheet

    parse_rules = Stylesheet._parse_rules
    shared: dict[tuple, list] = {}
    themes: dict[int, tuple[dict, tuple]] = {}  # id of a variables dict -> (it, its items): sorted once

    def shared_parse_rules(self, css, read_from, is_default_rules=False, tie_breaker=0, scope=""):
        variables = self._variables
        known = themes.get(id(variables))
        if known is None or known[0] is not variables:
            if len(themes) > 64:
                themes.clear()
            known = themes[id(variables)] = variables, tuple(sorted(variables.items()))
        key = (css, read_from, is_default_rules, tie_breaker, scope, known[1])
        rules = shared.get(key)
        if rules is None:
            rules = shared[key] = parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
        return rules

    Stylesheet._parse_rules = shared_parse_rules


def _warm_screens() -> None:
    """Draw the course view and open the bundled course's first lesson once, headless, in a scratch data
    folder, before any fork: Textual parses the app's and each screen's CSS and fills its caches on first use
    (half of a tutor's CPU to open its first lesson), and every child inherits them filled. No sandbox
    worker starts here (`make_app(warm_up=False)`; that lesson's output comes with the course), so no engine and no
    thread."""
    import asyncio

    from tutor.classroom.student_app import make_app

    folder = tempfile.mkdtemp(prefix="autograd-tutor-zygote-")
    try:
        # the bundled course whatever the class's: a teacher's first lesson would run its snippet here (its
        # output is not shipped), starting the engine (numpy) and the worker's threads: no fork then
        app = make_app({**os.environ, "AUTOGRAD_TUTOR_DATA_DIR": folder, "AUTOGRAD_TUTOR_LANG": "en",
                        "AUTOGRAD_TUTOR_CLASS_LESSONS": "", "AUTOGRAD_TUTOR_CLASS_BUNDLED": "1"}, warm_up=False)

        async def visit() -> None:
            async with app.run_test(size=(110, 32)) as pilot:
                await pilot.pause()
                await pilot.press("enter")
                await pilot.pause()

        asyncio.run(visit())
    except Exception as error:  # noqa: BLE001 - a warm-up that fails costs only speed
        from tutor.untrusted import echo

        echo(f"autograd-tutor zygote: screens not warmed up ({type(error).__name__}: {error})", err=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    listener = socket.socket(fileno=int(sys.argv[1]))
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    from lessons.course import load_course
    from tutor.classroom.student_app import class_lessons

    # parsed once here: every student's tutor (a new data folder) skips parsing the class's lessons
    folders, bundled = class_lessons(os.environ)
    load_course(folders, user_dir=None, include_bundled=bundled)
    share_css_parses()
    _warm_screens()
    if threading.active_count() != 1:
        sys.exit(f"an import or the warm-up started a thread, which a fork would not copy: {threading.enumerate()}")
    sys.stdout.flush()
    sys.stderr.flush()
    gc.freeze()  # the children's garbage collector leaves these objects (and their shared pages) alone
    _become_student(serve(listener))
    from tutor.classroom import student_app

    student_app.main()


if __name__ == "__main__":
    main()
