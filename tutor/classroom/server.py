"""`autograd-tutor serve`: the tutor in every student's browser, from the teacher's computer.

Built on textual-serve (the Textual team's server), with what a classroom needs around it:

- `GET /` — the join page: what this is, the student's name (typed, or picked from roster.txt),
  the class code when one is set, the language;
- `POST /join` — checks the code (wrong codes from one address are throttled) and the name,
  then gives the browser a session cookie and sends it to `/tutor`;
- `GET /tutor` — the terminal page (textual-serve's JavaScript, our own page: no request leaves
  this server; the class-full page when `max_students` other students are connected);
- `GET /ws` — one tutor process per connection (`tutor.classroom.student_app`, forked from the
  server's pre-imported zygote: see `zygote`) with the student's own data folder. A student who connects again (a reload, another tab) replaces
  their earlier connection, so a student is one process and counts once against the cap. When a
  student's process ends or dies, their page shows "session ended"; nobody else is affected.
"""
from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
import os
import secrets
import shlex
import socket
import sys
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import jinja2
from aiohttp import WSMsgType, web
from rich.text import Text
from textual_serve.app_service import AppService
from textual_serve.server import Server

from tutor.classroom.folder import ClassFolder, Student
from tutor.classroom.launcher import PID_LINE
from tutor.classroom.names import InvalidName, student_key
from tutor.classroom.zygote import Zygote
from tutor.i18n import t
from tutor.untrusted import text

log = logging.getLogger("autograd-tutor.serve")

TEMPLATES = Path(__file__).parent / "templates"
COOKIE = "autograd_tutor_session"
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
CODE_LENGTH = 6
FAILURES_ALLOWED = 20  # wrong class codes per address … (students behind one NAT share an address)
FAILURE_WINDOW = 60.0  # … per this many seconds
STOP_SECONDS = 8.0  # a student's process gets this long to quit before it is killed
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


class StudentService(AppService):
    """textual-serve's app process, with the student's environment; the page is told when it ends.

    With the zygote, the process textual-serve starts is the launcher: the tutor's first line on
    stdout says which process is the tutor, and whether it started without the zygote."""

    def __init__(self, command: str, *, environment: dict[str, str], on_alone=None, **options) -> None:
        super().__init__(command, **options)
        self.environment = environment
        self.on_alone = on_alone  # None: the command is the tutor itself, it reports no pid
        self.tutor_pid: int | None = None

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
        await self.remote_close()  # the process ended (quit, crash, killed): the page says "session ended"

    async def stop(self) -> None:
        try:
            await asyncio.wait_for(super().stop(), STOP_SECONDS)
        except (TimeoutError, asyncio.TimeoutError):
            log.warning("a student's tutor did not quit in %s s; killing it", STOP_SECONDS)
        process = self._process
        if process is not None and process.returncode is None:
            process.kill()
        if process is not None:
            await process.wait()


class ClassroomServer(Server):
    def __init__(self, class_dir: str | os.PathLike[str], *, host: str = "127.0.0.1", port: int = 8000,
                 class_code: str | None = None, max_students: int = 40, lesson_dirs=(), lang: str = "en",
                 command: str | None = None) -> None:
        # `exec`: textual-serve starts the command through a shell; the pid it holds is then the tutor itself
        # (the launcher's, while the zygote runs)
        self.zygote = Zygote() if command is None and hasattr(socket, "send_fds") and hasattr(os, "fork") else None
        self._told_alone = False
        command = command or f"exec {shlex.quote(sys.executable)} -m tutor.classroom.student_app"
        super().__init__(command, host=host, port=port, title="autograd-tutor")
        import textual_serve

        self.statics_path = Path(textual_serve.__file__).parent / "static"
        self.folder = ClassFolder(class_dir)
        self.class_code = normalise_code(class_code) if class_code else None
        self.max_students = max_students
        self.lesson_dirs = [str(Path(d).resolve()) for d in lesson_dirs]
        self.lang = lang
        self.templates = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True)
        self._sessions: dict[str, Session] = {}
        self._connections: dict[str, tuple[web.WebSocketResponse, StudentService]] = {}  # by student key
        self._failures: dict[str, deque[float]] = {}

    # ------------------------------------------------------------------ set-up

    def initialize_logging(self) -> None:
        """textual-serve's log, without local variables in tracebacks (they hold students' session tokens)."""
        from rich.logging import RichHandler

        logging.basicConfig(level="DEBUG" if self.debug else "INFO", format="%(message)s", datefmt="[%X]",
                            handlers=[RichHandler(show_path=False, show_time=False, rich_tracebacks=True,
                                                  tracebacks_show_locals=False, console=self.console)])

    async def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[self._headers])
        app.add_routes([
            web.get("/", self.handle_join_page, name="index"),
            web.post("/join", self.handle_join),
            web.get("/tutor", self.handle_tutor, name="tutor"),
            web.get("/ws", self.handle_websocket, name="websocket"),
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
        self.folder.save_settings(lessons=self.lesson_dirs)
        if self.zygote is not None and self.zygote.process is None:  # (tests serve one server twice)
            try:
                self.zygote.start()
            except OSError as error:
                log.warning("the students' tutors start one by one (slower): no zygote (%s)", error)
                self.zygote = None
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
        connections = list(self._connections.values())
        await asyncio.gather(*(service.stop() for _websocket, service in connections), return_exceptions=True)
        await asyncio.gather(*(websocket.close() for websocket, _service in connections), return_exceptions=True)
        if self.zygote is not None:
            self.zygote.stop()

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
                   name: str = "") -> web.Response:
        session = self._session(request)
        return self._page("join.html", lang, status, error=error, name=name, roster=self.folder.roster(),
                          needs_code=self.class_code is not None, session=session)

    async def handle_join_page(self, request: web.Request) -> web.Response:
        return self._join_page(request, preferred_language(request, self.lang))

    async def handle_join(self, request: web.Request) -> web.Response:
        form = await request.post()
        lang = form.get("lang") if form.get("lang") in ("en", "ja") else preferred_language(request, self.lang)
        name = str(form.get("name", ""))
        address = request.remote or "?"
        if self.class_code is not None:
            failures = self._failures.setdefault(address, deque())
            now = time.monotonic()
            while failures and now - failures[0] > FAILURE_WINDOW:
                failures.popleft()
            if len(failures) >= FAILURES_ALLOWED:
                return self._join_page(request, lang, status=429, error=t("web_too_many_tries", lang), name=name)
            if not hmac.compare_digest(normalise_code(str(form.get("code", ""))).encode(), self.class_code.encode()):
                failures.append(now)
                return self._join_page(request, lang, status=403, error=t("web_wrong_code", lang), name=name)
        try:
            roster = {student_key(entry): entry for entry in self.folder.roster()}
            if roster and student_key(name) not in roster:
                return self._join_page(request, lang, status=403, error=t("web_not_on_roster", lang))
            student = self.folder.student(roster.get(student_key(name), name), create=True)
        except InvalidName as problem:
            return self._join_page(request, lang, status=400, error=t(problem.reason, lang, **problem.params), name=name)
        except OSError as error:
            log.error("cannot create a student folder: %s", error)
            return self._join_page(request, lang, status=500, error=t("web_folder_error", lang))
        token = secrets.token_urlsafe(32)
        self._sessions[token] = Session(student, lang)
        response = web.Response(status=303, headers={"Location": "/tutor"})
        response.set_cookie(COOKIE, token, httponly=True, samesite="Strict", path="/")
        return response

    def _full(self, session: Session) -> bool:
        return session.student.key not in self._connections and len(self._connections) >= self.max_students

    async def handle_tutor(self, request: web.Request) -> web.Response:
        session = self._session(request)
        if session is None:
            raise web.HTTPSeeOther("/")
        if self._full(session):
            return self._page("full.html", session.lang, 503, max=self.max_students)
        return self._page("tutor.html", session.lang, name=session.student.name,
                          websocket_url=f"{'wss' if request.secure else 'ws'}://{request.host}/ws",
                          font_size=max(8, min(32, _to_int(request.query.get("fontsize", "16"), 16))))

    # ------------------------------------------------------------------ the tutor processes

    def _same_origin(self, request: web.Request) -> bool:
        origin = request.headers.get("Origin")
        if origin is None:
            return True  # not a browser (browsers always send Origin on WebSocket requests)
        return origin.split("://", 1)[-1].rstrip("/") == request.host

    def student_pids(self) -> dict[str, int]:
        """The process id of each connected student's tutor (for tests and the benchmark)."""
        return {key: service.pid for key, (_ws, service) in self._connections.items() if service.pid is not None}

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        session = self._session(request)
        if session is None or not self._same_origin(request):
            raise web.HTTPForbidden()
        websocket = web.WebSocketResponse(heartbeat=15)
        await websocket.prepare(request)
        lang, key = session.lang, session.student.key
        if self._full(session):
            await websocket.send_bytes(f"\r\n  {t('web_full_title', lang)}\r\n".encode())
            await websocket.close()
            return websocket
        service = StudentService(
            self.zygote.command if self.zygote else self.command, environment=self._environment(session),
            on_alone=self._tutor_alone if self.zygote else None, write_bytes=websocket.send_bytes,
            write_str=websocket.send_str, close=websocket.close, download_manager=self.download_manager,
        )
        previous = self._connections.get(key)
        self._connections[key] = (websocket, service)
        self.folder.mark_seen(session.student)
        if previous is not None:  # the same student in another tab, or a reload: one process per student
            await previous[0].send_bytes(f"\r\n  {t('web_replaced', previous[1].environment['AUTOGRAD_TUTOR_LANG'])}\r\n".encode())
            asyncio.create_task(previous[0].close())
        try:
            await service.start(_to_int(request.query.get("width", "80"), 80), _to_int(request.query.get("height", "24"), 24))
            async for message in websocket:
                if message.type != WSMsgType.TEXT:
                    continue
                await self._forward(message, websocket, service)
        except asyncio.CancelledError:
            pass
        except Exception as error:  # one student's trouble never reaches the others
            log.exception(error)
        finally:
            if self._connections.get(key, (None,))[0] is websocket:
                del self._connections[key]
            await service.stop()
            if not websocket.closed:
                await websocket.close()
        return websocket

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
            size = envelope[1]
            await service.set_terminal_size(max(1, min(500, _to_int(size.get("width"), 80))),
                                            max(1, min(300, _to_int(size.get("height"), 24))))
        elif kind == "ping" and len(envelope) > 1:
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
            "AUTOGRAD_TUTOR_CLASS_LESSONS": os.pathsep.join(self.lesson_dirs),
        }


def _to_int(value, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default
