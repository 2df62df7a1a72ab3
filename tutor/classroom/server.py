"""`autograd-tutor serve`: the tutor in every student's browser, from the teacher's computer.

Built on textual-serve (the Textual team's server), with what a classroom needs around it:

- `GET /` — the join page: what this is, the student's name (typed, or picked from roster.txt),
  the class code when one is set, the language;
- `POST /join` — checks the code (wrong codes from one address are throttled) and the name,
  then gives the browser a session cookie and sends it to `/tutor`;
- `GET /tutor` — the terminal page (textual-serve's JavaScript, our own page: no request leaves
  this server; the class-full page when `max_students` other students are connected);
- `GET /ws` — the student's tutor process (`tutor.classroom.student_app`, forked from the server's
  pre-imported zygote: see `zygote`) with the student's own data folder. A student is one process and
  counts once against the cap: a page that comes back (a reload, "Use it here" in another tab) within
  `REATTACH_SECONDS` is attached to the tutor still running, which draws its screen again; otherwise
  the tutor quits. When a student's process ends or dies, their page shows "session ended"; nobody else
  is affected.
"""
from __future__ import annotations

import asyncio
import errno
import hmac
import ipaddress
import json
import logging
import os
import resource
import secrets
import shlex
import signal
import socket
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
from aiohttp import WSMsgType, web
from aiohttp.http_exceptions import HttpProcessingError
from rich.text import Text
from textual_serve.app_service import AppService
from textual_serve.server import Server

from tutor.classroom import sandbox
from tutor.classroom.folder import CODE_ALPHABET, ClassFolder, Student
from tutor.classroom.launcher import PID_LINE
from tutor.classroom.limits import Backoff, Rate
from tutor.classroom.names import MAX_LENGTH, InvalidName, skeleton
from tutor.classroom.offer import Offer, make_offer
from tutor.classroom.student_app import ATTACH
from tutor.classroom.zygote import Zygote
from tutor.i18n import t
from tutor.untrusted import plain, text

log = logging.getLogger("autograd-tutor.serve")

TEMPLATES = Path(__file__).parent / "templates"
COOKIE = "autograd_tutor_session"
STUDENT_COOKIE = "autograd_tutor_student"  # the student's secret in this browser (see `folder`)
STUDENT_COOKIE_SECONDS = 365 * 24 * 3600
ADMITTED_COOKIE = "autograd_tutor_admitted"  # this browser gave the class code
CODE_LENGTH = 6
MAX_PENDING_REFUSALS = 8  # wrong codes from one address waiting out their backoff; more get HTTP 429 at once
MAX_SESSIONS = 5_000
SESSIONS_PER_STUDENT = 4
STOP_SECONDS = 8.0  # a student's processes have ended at most this long after their page closed …
REATTACH_SECONDS = 3.0  # … for the tutor waits this long for the page to come back (a reload) …
QUIT_SECONDS = 3.5  # … then gets this long to quit once asked (the rest: noticing the page closed, killing, a busy machine)
DRAIN_SECONDS = 2.0  # a tutor that reads no input for this long gets no more (its page's keys are dropped)
MAX_PENDING_INPUT = 256 * 1024  # bytes waiting in a tutor's stdin pipe; past that, input is dropped
FULL_RETRY_SECONDS = 5  # the class-full page asks again this often, so a waiting student gets in once a place frees
RELOAD_GRACE_SECONDS = 2.0  # a reloaded page's new socket waits this long for the old one to go
MAX_MESSAGE_BYTES = 64 * 1024
INPUT_BYTES_PER_SECOND = 16 * 1024  # keys and pastes of one page, on average …
INPUT_BURST_BYTES = 128 * 1024  # … and at once
MIN_MESSAGE_COST = 64  # bytes a message counts for, however small (a flood of pings or resizes)
MIN_COLUMNS, MAX_COLUMNS, MIN_ROWS, MAX_ROWS = 10, 400, 5, 200
IDLE_SECONDS = 15.0  # a connection that sends no request for this long is closed (a page's WebSocket pings)
FDS_PER_STUDENT = 6  # the server's end of a tutor's pipes and socket
MEMORY_PER_STUDENT = 600 * 1024 * 1024  # RSS of a tutor and its sandbox worker (PSS is about 110 MB idle)
MEMORY_CHECK_SECONDS = 2.0
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
# WebSocket close codes the terminal page explains (tutor.html)
CLOSE_REPLACED, CLOSE_ELSEWHERE, CLOSE_FULL, CLOSE_MEMORY = 4001, 4002, 4003, 4004
SECURITY_HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
                               "img-src 'self' data:; font-src 'self'; connect-src 'self'; frame-ancestors 'none'; "
                               "form-action 'self'; base-uri 'none'",
}


def generate_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(code: str) -> str:
    return "".join(code.split()).upper()


def is_local(host: str) -> bool:
    """Whether binding to `host` only lets this computer connect."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def lan_address() -> str | None:
    """This computer's address on the local network, to print for students (no packet is sent)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.255.255.255", 1))
            return probe.getsockname()[0]
    except OSError:
        return None


def preferred_language(request: web.Request, fallback: str) -> str:
    chosen = request.query.get("lang", "")
    if chosen in ("en", "ja"):
        return chosen
    accepted = request.headers.get("Accept-Language", "")
    if accepted:
        return "ja" if accepted.strip().lower().startswith("ja") else "en"
    return fallback


@dataclass
class Session:
    student: Student
    lang: str
    personal_code: str | None = None  # a new student's, until the welcome page has shown it


class StudentService(AppService):
    """textual-serve's app process, with the student's environment; the page is told when it ends.

    With the zygote, the process textual-serve starts is the launcher: the tutor's first line on
    stdout says which process is the tutor, and whether it started without the zygote."""

    def __init__(self, command: str, *, environment: dict[str, str], on_alone=None, **options) -> None:
        super().__init__(command, **options)
        self.environment = environment
        self.on_alone = on_alone  # None: the command is the tutor itself, it reports no pid
        self.tutor_pid: int | None = None
        self.ending = False  # the tutor said it exits, or its output ended: never to be attached to a page again

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        return {**super()._build_environment(width=width, height=height), **self.environment}

    async def _open_app_process(self, width: int = 80, height: int = 24):
        process = await super()._open_app_process(width, height)
        self.tutor_pid = process.pid
        if self.on_alone is not None:
            line = await process.stdout.readline()
            fields = line.split()
            if len(fields) == 3 and fields[0] == PID_LINE and fields[1].isdigit():
                self.tutor_pid = int(fields[1])
                if fields[2] == b"alone":
                    self.on_alone()
        return process

    @property
    def pid(self) -> int | None:
        """The student's tutor process (forked by the zygote: not the launcher textual-serve started)."""
        return self.tutor_pid if self._process is not None else None

    async def run(self) -> None:
        await super().run()
        self.ending = True
        await self.remote_close()  # the process ended (quit, crash, killed): the page says "session ended"

    async def on_meta(self, data: bytes) -> None:
        try:
            if json.loads(data).get("type") == "exit":  # the tutor quits (the student pressed ctrl+q): it closes
                self.ending = True  # its page before its process has ended
        except (ValueError, AttributeError):
            pass
        await super().on_meta(data)

    @property
    def alive(self) -> bool:
        """Whether the tutor still runs and its output is still read (it may be attached to a new page)."""
        process, task = self._process, self._task
        return (process is not None and process.returncode is None and not self.ending
                and task is not None and not task.done())

    @property
    def backlog(self) -> bool:
        """Whether input is waiting for the tutor to read it (a flood): such a tutor is not kept for a new page."""
        stdin = self._process.stdin if self._process is not None else None
        return stdin is not None and stdin.transport.get_write_buffer_size() > 0

    async def attach(self, websocket: web.WebSocketResponse, width: int, height: int) -> None:
        """Show this running tutor on a new page: its output goes there from now on; the new page's terminal
        gets its size, the terminal modes and the whole screen again (`student_app.ATTACH`)."""
        self.remote_write_bytes = _to_page(websocket.send_bytes)
        self.remote_write_str = _to_page(websocket.send_str)
        self.remote_close = websocket.close
        await self.set_terminal_size(width, height)
        await self.send_meta({"type": ATTACH})

    async def send_bytes(self, data: bytes) -> bool:
        return await self._send(self.encode_packet(b"D", data))

    async def send_meta(self, data: dict) -> bool:
        return await self._send(self.encode_packet(b"M", json.dumps(data).encode("utf-8")))

    async def _send(self, packet: bytes) -> bool:
        """Write to the tutor's stdin, never waiting long: a tutor that does not read (busy, stuck, flooded)
        gets its input dropped past `MAX_PENDING_INPUT`, so neither the server's memory nor the page's
        handler (which must notice the page closing) waits on it."""
        if self._process is None or self._process.stdin is None:
            return False
        try:
            stdin = self._process.stdin
            if stdin.transport.get_write_buffer_size() > MAX_PENDING_INPUT:
                return False
            stdin.write(packet)
            await asyncio.wait_for(stdin.drain(), DRAIN_SECONDS)
        except (RuntimeError, OSError, TimeoutError, asyncio.TimeoutError):
            return False
        return True

    async def stop(self) -> None:
        """Ask the tutor to quit; kill it (through its launcher) if it has not within QUIT_SECONDS, or at once
        when its input is so backed up that the request cannot even be queued (a flood: it would read every key
        first). Bounded whatever the tutor or the page do: a new tutor for the student waits for this. (Killing
        loses nothing: every answer is its own committed transaction.)"""
        process = self._process
        if process is None:
            return
        if process.returncode is None:
            if await self.send_meta({"type": "quit"}):
                try:
                    await asyncio.wait_for(process.wait(), QUIT_SECONDS)
                except (TimeoutError, asyncio.TimeoutError):
                    log.warning("a student's tutor did not quit in %s s; killing it", QUIT_SECONDS)
            else:
                log.warning("a student's tutor has a backlog of input; killing it")
        if process.returncode is None:
            process.kill()
            await process.wait()
        task, self._task = self._task, None
        if task is not None:  # its last output, read to the end of the pipe
            try:
                await asyncio.wait_for(task, 2.0)
            except (TimeoutError, asyncio.TimeoutError, asyncio.CancelledError):
                pass


class ListenError(Exception):
    """The server cannot listen where it was asked (its message: the address, why, and what to do)."""


class ClassroomServer(Server):
    def __init__(self, class_dir: str | os.PathLike[str], *, host: str = "127.0.0.1", port: int = 8000,
                 class_code: str | None = None, max_students: int = 40, offer: Offer | None = None,
                 lang: str = "en", command: str | None = None, memory_per_student: int = MEMORY_PER_STUDENT,
                 reattach_seconds: float = REATTACH_SECONDS) -> None:
        # `exec`: textual-serve starts the command through a shell; the pid it holds is then the tutor itself
        # (the launcher's, while the zygote runs)
        self.offer = offer if offer is not None else make_offer(None)
        self.zygote = Zygote(self.offer.environment()) if command is None and hasattr(socket, "send_fds") and hasattr(os, "fork") else None
        self.warm_worker = sandbox.warm_worker() if self.zygote is not None else None  # students' workers fork from it
        self._told_alone = False
        self._last_fd_warning = self._last_full_warning = -60.0
        self.memory_per_student = memory_per_student
        self.reattach_seconds = min(reattach_seconds, STOP_SECONDS - QUIT_SECONDS - 1)  # (STOP_SECONDS holds)
        self._watch: asyncio.Task | None = None
        command = command or f"exec {shlex.quote(sys.executable)} -m tutor.classroom.student_app"
        super().__init__(command, host=host, port=port, title="autograd-tutor")
        import textual_serve

        self.statics_path = Path(textual_serve.__file__).parent / "static"
        self.folder = ClassFolder(class_dir)
        self.class_code = normalise_code(class_code) if class_code else None
        self.max_students = max_students
        self.lang = lang
        self.templates = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True)
        self._sessions: dict[str, Session] = {}
        self._connections: dict[str, Connection] = {}  # by student key
        self._backoff = Backoff()
        self._pending: dict[str, int] = {}  # address -> wrong codes waiting out their backoff
        self._new_students = Rate(max(30, 2 * max_students))  # new students per minute
        self._admissions: dict[str, None] = {}
        self._endings: set[asyncio.Task] = set()  # `_page_gone` of pages that have gone

    # ------------------------------------------------------------------ set-up

    def initialize_logging(self) -> None:
        """textual-serve's log, with plain tracebacks: no local variables (they hold students' session tokens),
        and nothing imported at the first error (out of file descriptors, an import fails, and so did the
        server). Every line passes the terminal boundary (`PlainFormatter`)."""
        from rich.logging import RichHandler

        handler = RichHandler(show_path=False, show_time=True, rich_tracebacks=False, markup=False,
                              console=self.console)
        handler.setFormatter(PlainFormatter("%(message)s"))
        logging.basicConfig(level="DEBUG" if self.debug else "INFO", datefmt="[%X]", handlers=[handler])

    def serve(self, debug: bool = False) -> None:
        """Run until Ctrl+C or SIGTERM, holding against a class's load and one client's tricks: at most
        `max_connections` open connections (more are closed at once), idle ones closed after `IDLE_SECONDS`,
        running out of file descriptors survived and said in the log, each tutor's memory watched."""
        self.debug = debug
        self.initialize_logging()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        stopping = asyncio.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(signum, stopping.set)
            except NotImplementedError:
                pass
        loop.set_exception_handler(self._loop_error)
        try:
            loop.run_until_complete(self._run(stopping))
        finally:
            loop.close()

    async def _run(self, stopping: asyncio.Event) -> None:
        runner = web.AppRunner(await self._make_app(), handle_signals=False, keepalive_timeout=IDLE_SECONDS)
        await runner.setup()
        cap_connections(runner.server, lambda: self.max_connections, self._connections_full)
        site = web.TCPSite(runner, self.host, self.port, backlog=128)
        try:
            await site.start()
        except OSError as error:  # the port taken (another server, a class still running), an address not ours
            await runner.cleanup()
            key = "serve_port_in_use" if error.errno == errno.EADDRINUSE else "serve_cannot_listen"
            reason = os.strerror(error.errno) if error.errno else str(error)
            raise ListenError(t(key, self.lang, host=self.host, port=self.port, reason=reason)) from None
        self._announce()
        try:
            await stopping.wait()
        finally:
            await runner.cleanup()

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict) -> None:
        """Out of file descriptors (EMFILE, ENFILE): asyncio pauses accepting for a second and retries; say so
        once a minute, in one line, rather than a traceback per try."""
        error = context.get("exception")
        if isinstance(error, OSError) and error.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
            now = time.monotonic()
            if now - self._last_fd_warning > 60:
                self._last_fd_warning = now
                log.warning("out of file descriptors (%s) with %d connections open: new connections wait; "
                            "raise `ulimit -n` or lower --max-students", errno.errorcode.get(error.errno, error.errno),
                            len(self._connections))
            return
        loop.default_exception_handler(context)

    def _connections_full(self, count: int) -> None:
        """Said once a minute: the connection cap (below the file descriptor limit) is closing idle connections."""
        now = time.monotonic()
        if now - self._last_full_warning > 60:
            self._last_full_warning = now
            soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            log.warning("%d connections open, the most this server keeps (`ulimit -n` is %s, %d students "
                        "connected): the oldest idle ones are closed", count - 1,
                        "unlimited" if soft == resource.RLIM_INFINITY else soft, len(self._connections))

    @property
    def max_connections(self) -> int:
        """Open connections at once: enough for every student's page and a few reloads, and always below the
        file descriptor limit (each connected student's tutor also takes a few)."""
        soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = 4 * self.max_students + 32
        if soft == resource.RLIM_INFINITY:
            return wanted
        return max(8, min(wanted, soft - 32 - FDS_PER_STUDENT * len(self._connections)))

    async def _watch_memory(self) -> None:
        """Each student's tutor (with its sandbox worker) stays under `memory_per_student` bytes; one that grows
        past it is stopped and its page told why, so the class's memory stays under max_students times that."""
        while True:
            await asyncio.sleep(MEMORY_CHECK_SECONDS)
            children = process_children((self.warm_worker.pid,) if self.warm_worker else ()) if self._connections else {}
            for connection in list(self._connections.values()):
                service = connection.service
                pid = service.pid if service is not None else None
                if pid is None:
                    continue
                used = tree_memory(pid, children)
                if used > self.memory_per_student:
                    log.warning("%s's tutor used %d MB (limit %d MB): stopped", plain(connection.name), used >> 20,
                                self.memory_per_student >> 20)
                    connection.killed = True
                    kill_tree(pid, children)
                    await connection.websocket.close(code=CLOSE_MEMORY, message=b"memory limit")

    async def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[self._headers])
        app.add_routes([
            web.get("/", self.handle_join_page, name="index"),
            web.post("/join", self.handle_join),
            web.get("/welcome", self.handle_welcome, name="welcome"),
            web.get("/tutor", self.handle_tutor, name="tutor"),
            web.get("/ws", self.handle_websocket, name="websocket"),
            web.get("/ws/takeover", self.handle_websocket),
            web.get("/download/{key}", self.handle_download, name="download"),
            web.static("/static", self.statics_path, name="static"),
        ])
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        return app

    @web.middleware
    async def _headers(self, request: web.Request, handler):
        response = await handler(request)
        if not isinstance(response, web.WebSocketResponse):
            response.headers.update(SECURITY_HEADERS)
        return response

    async def on_startup(self, app: web.Application) -> None:
        self.folder.save_settings(**self.offer.settings())
        self._watch = asyncio.create_task(self._watch_memory())
        if self.zygote is not None and self.zygote.process is None:  # (tests serve one server twice)
            try:
                self.zygote.start()
            except OSError as error:
                log.warning("the students' tutors start one by one (slower): no zygote (%s)", error)
                self.zygote = None
        if self.warm_worker is not None and self.warm_worker.process is None:
            try:
                self.warm_worker.start()
            except OSError as error:
                log.warning("each student's snippet worker starts on its own (slower): no warm worker (%s)", plain(error))
                self.warm_worker = None

    def _announce(self) -> None:
        """Where the class connects, once the server listens there (not before: a port in use is said instead)."""
        lang, console = self.lang, self.console
        shown = "localhost" if self.host in ("127.0.0.1", "::1") else self.host
        urls = [f"http://{shown}:{self.port}/"]
        if self.host in ("0.0.0.0", "::") and (address := lan_address()):
            urls = [f"http://{address}:{self.port}/"]
        # Text, never markup: the folder's path and the host are the teacher's, and may hold [ or escapes
        console.print(text(t("serve_started", lang, url=urls[0]), "bold"), highlight=False)
        if self.class_code:
            before, _, after = t("serve_code", lang, code="\0").partition("\0")
            console.print(text(Text.assemble(before, (f" {self.class_code} ", "bold reverse"), after)), highlight=False)
        else:
            console.print(t("serve_no_code", lang), highlight=False)
        console.print(text(t("serve_folder", lang, path=self.folder.path, max=self.max_students)), highlight=False)
        console.print(text(t("serve_report", lang, path=shlex.quote(str(self.folder.path)))), highlight=False)
        console.print(t("serve_stop", lang), highlight=False)

    async def on_shutdown(self, app: web.Application) -> None:
        """Every student's tutor quits (their answers are already saved), then their pages are closed."""
        if self._watch is not None:
            self._watch.cancel()
        connections = list(self._connections.values())
        for ending in list(self._endings):  # no tutor waits for a next page now: every one is stopped here
            ending.cancel()
        await asyncio.gather(*(c.service.stop() for c in connections if c.service is not None), return_exceptions=True)
        await asyncio.gather(*(c.websocket.close() for c in connections), return_exceptions=True)
        for zygote in (self.zygote, self.warm_worker):
            if zygote is not None:
                zygote.stop()

    def _tutor_alone(self) -> None:
        """A launcher could not reach the zygote and started the tutor itself: said once."""
        if not self._told_alone:
            self._told_alone = True
            status = self.zygote.process.poll()
            log.warning("the zygote is not running (%s): each student's tutor now starts on its own, more slowly",
                        "it did not answer" if status is None else f"it ended with status {status}")

    # ------------------------------------------------------------------ pages

    def _page(self, template: str, lang: str, status: int = 200, **context) -> web.Response:
        page = self.templates.get_template(template).render(lang=lang, t=lambda key, **p: t(key, lang, **p), **context)
        return web.Response(text=page, content_type="text/html", charset="utf-8", status=status)

    def _session(self, request: web.Request) -> Session | None:
        token = request.cookies.get(COOKIE, "")
        return self._sessions.get(token) if token else None

    def _join_page(self, request: web.Request, lang: str, *, status: int = 200, error: str | None = None,
                   name: str = "", ask_personal: bool = False, admitted: bool = False) -> web.Response:
        """The join page. With a class code and a roster, the names are listed only to a browser that gave
        the code (`_admitted`, or `admitted` as it gives it); until then the page asks for the code alone."""
        session = self._session(request)
        roster = self.folder.roster()
        admitted = admitted or self.class_code is None or self._admitted(request)
        return self._page("join.html", lang, status, error=error, name=name, roster=roster if admitted else [],
                          code_first=bool(roster) and not admitted, needs_code=not admitted, session=session,
                          ask_personal=ask_personal, max_name=MAX_LENGTH)

    def _admitted(self, request: web.Request) -> bool:
        token = request.cookies.get(ADMITTED_COOKIE, "")
        return bool(token) and token in self._admissions

    async def handle_join_page(self, request: web.Request) -> web.Response:
        return self._join_page(request, preferred_language(request, self.lang))

    async def _refuse(self, request: web.Request, keys: list[str], page) -> web.Response:
        """A wrong class or personal code: counted per address and per name; past a few, the answer waits
        (backoff) and a flood of them gets HTTP 429. A right code is checked before this, never refused."""
        address = keys[0]
        if self._pending.get(address, 0) >= MAX_PENDING_REFUSALS:
            return page(429, "web_too_many_tries")
        delay = max(self._backoff.failed(key) for key in keys)
        if delay:
            self._pending[address] = self._pending.get(address, 0) + 1
            try:
                await asyncio.sleep(delay)
            finally:
                self._pending[address] -= 1
                if not self._pending[address]:
                    del self._pending[address]
        return page(403, None)

    async def handle_join(self, request: web.Request) -> web.Response:
        form = await request.post()
        lang = form.get("lang") if form.get("lang") in ("en", "ja") else preferred_language(request, self.lang)
        name = str(form.get("name", ""))[:4 * MAX_LENGTH]
        address = f"address:{request.remote or '?'}"
        admitted = self.class_code is None or self._admitted(request)
        if not admitted:
            given = normalise_code(str(form.get("code", ""))[:64])
            if not hmac.compare_digest(given.encode(), self.class_code.encode()):
                return await self._refuse(request, [address], lambda status, key: self._join_page(
                    request, lang, status=status, error=t(key or "web_wrong_code", lang), name=name))
            if self.folder.roster() and not name:  # the code alone: now the class list is shown
                response = self._join_page(request, lang, admitted=True)
                self._admit(response)
                return response
        try:
            roster = {skeleton(entry): entry for entry in self.folder.roster()}
            if roster and skeleton(name) not in roster:
                return self._join_page(request, lang, status=403, error=t("web_not_on_roster", lang))
            student = self.folder.student(roster.get(skeleton(name), name))
        except InvalidName as problem:
            return self._join_page(request, lang, status=400, error=t(problem.reason, lang, **problem.params), name=name)
        personal_code = None
        try:
            if self.folder.has_secret(student):
                if not self.folder.check_secret(student, token=request.cookies.get(STUDENT_COOKIE, ""),
                                                code=str(form.get("personal", ""))[:64]):
                    tried = bool(str(form.get("personal", "")).strip())
                    keys = [address, f"name:{student.key}"]
                    return await self._refuse(request, keys, lambda status, key: self._join_page(
                        request, lang, status=status, name=name, ask_personal=True,
                        error=t(key or ("web_wrong_personal_code" if tried else "web_name_taken"), lang)))
                self._backoff.forget(f"name:{student.key}")
            else:
                if not self.folder.exists(student) and not self._new_students.allow():
                    return self._join_page(request, lang, status=429, error=t("web_too_many_new", lang), name=name)
                student = self.folder.student(student.name, create=True)
                token, personal_code = self.folder.new_secret(student)
        except OSError as error:
            log.error("cannot write a student's folder: %s", error)
            return self._join_page(request, lang, status=500, error=t("web_folder_error", lang))
        session_token = secrets.token_urlsafe(32)
        self._add_session(session_token, Session(student, lang, personal_code))
        response = web.Response(status=303, headers={"Location": "/welcome" if personal_code else "/tutor"})
        response.set_cookie(COOKIE, session_token, httponly=True, samesite="Strict", path="/")
        if personal_code:
            response.set_cookie(STUDENT_COOKIE, token, httponly=True, samesite="Strict", path="/",
                                max_age=STUDENT_COOKIE_SECONDS)
        if self.class_code is not None:
            self._admit(response)
        return response

    def _admit(self, response: web.Response) -> None:
        """Remember that this browser gave the class code (so the roster may be shown to it)."""
        token = secrets.token_urlsafe(24)
        self._admissions[token] = None
        while len(self._admissions) > MAX_SESSIONS:
            self._admissions.pop(next(iter(self._admissions)))
        response.set_cookie(ADMITTED_COOKIE, token, httponly=True, samesite="Strict", path="/")

    def _add_session(self, token: str, session: Session) -> None:
        """Sessions live in memory, bounded: a student keeps their few latest, the class the latest overall."""
        theirs = [old for old, other in self._sessions.items() if other.student.key == session.student.key]
        for old in theirs[:max(0, len(theirs) - SESSIONS_PER_STUDENT + 1)]:
            del self._sessions[old]
        self._sessions[token] = session
        while len(self._sessions) > MAX_SESSIONS:
            self._sessions.pop(next(iter(self._sessions)))

    async def handle_welcome(self, request: web.Request) -> web.Response:
        """A new student's personal code, shown once (for another computer), then on to the tutor."""
        session = self._session(request)
        if session is None:
            raise web.HTTPSeeOther("/")
        code, session.personal_code = session.personal_code, None
        if code is None:
            raise web.HTTPSeeOther("/tutor")
        return self._page("welcome.html", session.lang, name=session.student.name, personal_code=code)

    def _full(self, session: Session) -> bool:
        return session.student.key not in self._connections and len(self._connections) >= self.max_students

    async def _full_after_leavers(self, session: Session) -> bool:
        """Whether the class is full for `session`, once the students whose page has already closed have left:
        such a student holds their place until their tutor has ended (up to STOP_SECONDS: the class's memory
        bound), so a student arriving meanwhile waits for that place rather than being told the class is full."""
        deadline = time.monotonic() + STOP_SECONDS + 4
        while self._full(session):
            leaving = [connection for connection in self._connections.values() if connection.leaving]
            if not leaving or time.monotonic() > deadline:
                return True
            await asyncio.sleep(0.05)
        return False

    async def handle_tutor(self, request: web.Request) -> web.Response:
        session = self._session(request)
        if session is None:
            raise web.HTTPSeeOther("/")
        if await self._full_after_leavers(session):
            return self._page("full.html", session.lang, 503, max=self.max_students, retry=FULL_RETRY_SECONDS)
        takeover = "/takeover" if request.query.get("takeover") == "1" else ""
        return self._page("tutor.html", session.lang, name=session.student.name,
                          websocket_url=f"{'wss' if request.secure else 'ws'}://{request.host}/ws{takeover}",
                          font_size=max(8, min(32, _to_int(request.query.get("fontsize", "16"), 16))),
                          close_replaced=CLOSE_REPLACED, close_elsewhere=CLOSE_ELSEWHERE, close_full=CLOSE_FULL,
                          close_memory=CLOSE_MEMORY)

    # ------------------------------------------------------------------ the tutor processes

    def _same_origin(self, request: web.Request) -> bool:
        origin = request.headers.get("Origin")
        if origin is None:
            return True  # not a browser (browsers always send Origin on WebSocket requests)
        return origin.split("://", 1)[-1].rstrip("/") == request.host

    def student_pids(self) -> dict[str, int]:
        """The process id of each connected student's tutor (for tests and the benchmark)."""
        return {key: connection.service.pid for key, connection in self._connections.items()
                if connection.service is not None and connection.service.pid is not None}

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One student's terminal. A student has one tutor at a time: a second tab is told the tutor is open
        elsewhere (close code `CLOSE_ELSEWHERE`) unless it asks to take over (`/ws/takeover`, the page's
        "Use it here" button); then the other tab is told why it closed (`CLOSE_REPLACED`). A page whose
        earlier page has closed (a reload, a takeover) is attached to the tutor still running (`_park`) when
        it comes within `reattach_seconds` in the same language; otherwise its new tutor starts only once the
        old one has ended."""
        session = self._session(request)
        if session is None or not self._same_origin(request):
            raise web.HTTPForbidden()
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE_BYTES)
        await websocket.prepare(request)
        key = session.student.key
        takeover = request.path.endswith("/takeover")
        previous = self._connections.get(key)
        if previous is not None and not takeover:  # a reload: the old page's socket closes just before
            if not await previous.wait_closed(RELOAD_GRACE_SECONDS):
                await websocket.close(code=CLOSE_ELSEWHERE, message=b"open in another tab")
                return websocket
            previous = self._connections.get(key)  # its tutor may still be ending: waited for below
        if await self._full_after_leavers(session):
            await websocket.close(code=CLOSE_FULL, message=b"the class is full")
            return websocket
        if self._connections.get(key) is not previous:  # another tab of this student came while this one waited
            await websocket.close(code=CLOSE_ELSEWHERE, message=b"open in another tab")
            return websocket
        me = Connection(websocket, session.student.name, session.lang)
        self._connections[key] = me  # no await since the look-up above: a burst of sockets sees each other
        service = None
        size = terminal_size(request.query.get("width"), request.query.get("height"))
        try:
            if previous is not None:
                await previous.websocket.close(code=CLOSE_REPLACED, message=b"opened in another tab")
                service = await previous.hand_over(me, STOP_SECONDS + 4)
                if service is None and not previous.ended.is_set():
                    log.warning("a student's earlier tutor has not ended yet")
                    return websocket
                if service is None and self._connections.get(key) is not me:  # taken over in turn meanwhile
                    return websocket
            self.folder.mark_seen(session.student)
            if service is not None:  # (taken over in turn meanwhile: this page has closed, and parks it again)
                await service.attach(websocket, *size)
            else:
                service = StudentService(
                    self.zygote.command if self.zygote else self.command, environment=self._environment(session),
                    on_alone=self._tutor_alone if self.zygote else None, write_bytes=_to_page(websocket.send_bytes),
                    write_str=_to_page(websocket.send_str), close=websocket.close,
                    download_manager=self.download_manager,
                )
                me.service = service
                await service.start(*size)
            bucket = InputBucket()
            async for message in websocket:
                # past the page's rate, input is dropped, not waited for: the page closing (behind a flood) is
                # seen at once, and its tutor ends in time
                if message.type == WSMsgType.TEXT and bucket.take(len(message.data)):
                    await self._forward(message, websocket, service)
        except asyncio.CancelledError:
            pass
        except Exception as error:  # one student's trouble never reaches the others
            log.exception(error)
        finally:
            # in a task of its own: aiohttp cancels this handler once the page's connection is lost, and the
            # tutor must still wait for the next page, or end (STOP_SECONDS) and free the place
            ending = asyncio.create_task(self._page_gone(key, me))
            self._endings.add(ending)
            ending.add_done_callback(self._endings.discard)
            try:
                await asyncio.shield(ending)
            except asyncio.CancelledError:
                pass
        return websocket

    async def _page_gone(self, key: str, me: Connection) -> None:
        """After a student's page has gone: their tutor goes to their next page (`_park`) or is stopped; then
        the place is free."""
        try:
            if not me.websocket.closed:
                await me.websocket.close()
            if me.service is not None and not await self._park(me):
                await me.service.stop()
        except Exception as error:  # (never one student's trouble for the others)
            log.exception(error)
        finally:
            if self._connections.get(key) is me:  # only now: until its tutor has ended, it is the student's
                del self._connections[key]
            me.ended.set()

    async def _park(self, connection: Connection) -> bool:
        """The page has gone: keep its tutor running for `reattach_seconds`, for the student's next page (a
        reload) to take over (`Connection.hand_over`). Whether one did; if not, the tutor is the caller's to
        stop (and no page can take it any more). Not kept: a tutor that has ended, was stopped for its memory,
        or has input waiting (a flood: it must end within STOP_SECONDS)."""
        service = connection.service
        if self.reattach_seconds <= 0 or connection.killed or not service.alive or service.backlog:
            connection.given_up = True
            return False
        connection.parked.set()
        try:
            await asyncio.wait_for(connection.claimed.wait(), self.reattach_seconds)
        except (TimeoutError, asyncio.TimeoutError):
            pass
        finally:
            connection.given_up = not connection.adopted  # (no await between the check and this)
        return connection.adopted

    async def _forward(self, message, websocket: web.WebSocketResponse, service: StudentService) -> None:
        try:
            envelope = message.json()
        except ValueError:
            return
        if not isinstance(envelope, list) or not envelope:
            return
        kind = envelope[0]
        if kind == "stdin" and len(envelope) > 1 and isinstance(envelope[1], str):
            await service.send_bytes(envelope[1].encode("utf-8", "replace"))
        elif kind == "resize" and len(envelope) > 1 and isinstance(envelope[1], dict):
            await service.set_terminal_size(*terminal_size(envelope[1].get("width"), envelope[1].get("height")))
        elif kind == "ping" and len(envelope) > 1 and isinstance(envelope[1], (str, int)) and len(str(envelope[1])) < 64:
            await websocket.send_json(["pong", envelope[1]])
        elif kind == "blur":
            await service.blur()
        elif kind == "focus":
            await service.focus()

    def _environment(self, session: Session) -> dict[str, str]:
        return {
            "AUTOGRAD_TUTOR_DATA_DIR": str(session.student.folder),
            "AUTOGRAD_TUTOR_STUDENT": session.student.name,
            "AUTOGRAD_TUTOR_LANG": session.lang,
            **self.offer.environment(),
            **sandbox.environment(self.warm_worker),
        }


class PlainFormatter(logging.Formatter):
    """A log line (its traceback too) through `untrusted.plain`: OSError texts name files of lesson and class
    folders, access lines carry what clients sent (paths, user agents); the teacher's terminal shows their
    control characters and escape sequences (an OSC 8 link, a title change) as visible text, never obeys them.
    (Rich markup is off in the handler: `[/]` is read as it is.) A malformed request is one line, no traceback."""

    def format(self, record: logging.LogRecord) -> str:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, HttpProcessingError):  # a malformed request: any client can send many, one line each
            record = logging.makeLogRecord({**record.__dict__, "msg": f"{record.getMessage()}: refused: {str(error)[:300]}",
                                            "args": None, "exc_info": None, "exc_text": None})
        return plain(super().format(record))


def _to_page(send):
    """`send` to a page that may have gone: then the output is dropped, and the tutor's output is still read
    (a tutor whose output pipe is full cannot quit: it would be killed only after STOP_SECONDS)."""
    async def send_or_drop(data) -> None:
        try:
            await send(data)
        except (ConnectionError, RuntimeError):
            pass

    return send_or_drop


def terminal_size(width, height) -> tuple[int, int]:
    """A terminal size from the page (the first one too: it sizes the tutor's screen buffers), clamped."""
    return (max(MIN_COLUMNS, min(MAX_COLUMNS, _to_int(width, 80))), max(MIN_ROWS, min(MAX_ROWS, _to_int(height, 24))))


def cap_connections(server, limit, full=lambda count: None) -> None:
    """Past `limit()` open connections, make room as each new one arrives: the oldest connection with no
    request in progress (idle, or never sent one) is closed; if every one is busy, the new one is. So idle
    connections cannot fill the server, and a page's request or a student's terminal is never cut.
    `full(count)` is called each time the limit is reached (to say so)."""
    made = server.connection_made

    def connection_made(handler, transport) -> None:
        made(handler, transport)
        if len(server._connections) > limit():
            full(len(server._connections))
        while len(server._connections) > limit():
            idle = next((other for other in server._connections
                         if other is not handler and not getattr(other, "_request_in_progress", True)), None)
            (server._connections.get(idle) if idle is not None else transport).abort()
            server._connections.pop(idle if idle is not None else handler, None)
            if idle is None:
                return

    server.connection_made = connection_made


def process_children(zygotes: tuple[int | None, ...] = ()) -> dict[int, list[int]]:
    """Every process's children, from one pass over /proc (Linux; {} elsewhere). A child of one of `zygotes`
    counts as the child of the launcher it took over from (the process with the same stdin): so a student's
    snippet worker, forked by the warm worker, is in their tutor's tree."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return children
    for entry in entries:
        if entry.isdigit():
            try:
                parent = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(parent, []).append(int(entry))
    forked = {stdin: pid for zygote in zygotes if zygote for pid in children.get(zygote, []) if (stdin := _stdin(pid))}
    if forked:
        for pid in [pid for members in children.values() for pid in members]:
            adopted = forked.get(_stdin(pid)) if pid not in forked.values() else None
            if adopted is not None:
                children.setdefault(pid, []).append(adopted)
    return children


def _stdin(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/fd/0")
    except OSError:
        return None


def process_tree(pid: int, children: dict[int, list[int]]) -> list[int]:
    found, queue = [], [pid]
    while queue:
        member = queue.pop()
        if member not in found:  # (adopted children: never twice)
            found.append(member)
            queue.extend(children.get(member, []))
    return found


def tree_memory(pid: int, children: dict[int, list[int]]) -> int:
    """Resident bytes of a process and its descendants (Linux /proc; 0 elsewhere)."""
    total = 0
    for member in process_tree(pid, children):
        try:
            total += int(Path(f"/proc/{member}/statm").read_text().split()[1]) * PAGE_BYTES
        except (OSError, ValueError, IndexError):
            continue
    return total


def kill_tree(pid: int, children: dict[int, list[int]]) -> None:
    for member in reversed(process_tree(pid, children)):
        try:
            os.kill(member, signal.SIGKILL)
        except OSError:
            pass


@dataclass
class Connection:
    """A student's terminal: its socket, its tutor once started, and whether its handler has finished
    (the tutor has ended or moved to the student's next page: a new one may start). Once its page has
    gone, the tutor is `parked` until the student's next page has `claimed` it (and `adopted` it, or not:
    another language) or it is `given_up`."""

    websocket: web.WebSocketResponse
    name: str = ""
    lang: str = ""
    service: StudentService | None = None
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    parked: asyncio.Event = field(default_factory=asyncio.Event)
    claimed: asyncio.Event = field(default_factory=asyncio.Event)
    adopted: bool = False
    given_up: bool = False
    killed: bool = False  # stopped for its memory

    @property
    def leaving(self) -> bool:
        """The page has closed and the tutor is waiting for the next page or ending: the place frees (or
        passes to that page) within STOP_SECONDS."""
        return self.websocket.closed and not self.ended.is_set()

    async def hand_over(self, heir: Connection, seconds: float) -> StudentService | None:
        """This connection's tutor, given to `heir` (the student's next page, this page being closed) once it
        is parked, when it still runs and speaks the heir's language; else None, once it has ended (or after
        `seconds`: see `ended`)."""
        deadline = time.monotonic() + seconds
        waiting = [asyncio.ensure_future(self.parked.wait()), asyncio.ensure_future(self.ended.wait())]
        try:
            await asyncio.wait(waiting, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiting:
                waiter.cancel()
        service = self.service
        if self.parked.is_set() and not self.given_up and not self.claimed.is_set():
            self.claimed.set()  # (no await between the checks and these)
            if self.lang == heir.lang and service is not None and service.alive:
                self.adopted = True
                heir.service = service
                return service
        await self.wait_ended(max(0.0, deadline - time.monotonic()))
        return None

    async def wait_closed(self, seconds: float) -> bool:
        """Whether the page's socket closes (or the handler ends) within `seconds`."""
        deadline = time.monotonic() + seconds
        while not (self.websocket.closed or self.ended.is_set()):
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.05)
        return True

    async def wait_ended(self, seconds: float) -> bool:
        try:
            await asyncio.wait_for(self.ended.wait(), seconds)
        except (TimeoutError, asyncio.TimeoutError):
            return False
        return True


class InputBucket:
    """What one page may send: `INPUT_BYTES_PER_SECOND` on average, `INPUT_BURST_BYTES` at once (a paste);
    every message costs at least `MIN_MESSAGE_COST` (a flood of pings or resizes)."""

    def __init__(self, now=time.monotonic) -> None:
        self.now = now
        self.tokens = float(INPUT_BURST_BYTES)
        self.last = now()

    def take(self, size: int) -> bool:
        """Whether a message of `size` bytes is within the rate now (if so, it is counted)."""
        cost = max(MIN_MESSAGE_COST, size)
        now = self.now()
        self.tokens = min(INPUT_BURST_BYTES, self.tokens + (now - self.last) * INPUT_BYTES_PER_SECOND)
        self.last = now
        if cost > self.tokens:
            return False
        self.tokens -= cost
        return True


def _to_int(value, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default
