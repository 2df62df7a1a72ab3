"""The classroom server without a browser: join page, class code, roster, cap, cookies, origin, one process per student.

These run everywhere (no Chromium needed); tests/serve drives the same server from a real browser.
"""
import asyncio
import contextlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer
from click.testing import CliRunner

from tutor.classroom.server import (
    CLOSE_ELSEWHERE,
    CLOSE_REPLACED,
    COOKIE,
    ClassroomServer,
    generate_code,
    is_local,
    normalise_code,
)

ROOT = Path(__file__).resolve().parents[2]


def make_server(tmp_path, **options) -> ClassroomServer:
    options.setdefault("lang", "en")
    return ClassroomServer(tmp_path / "class", **options)


async def client_for(server: ClassroomServer) -> TestClient:
    client = TestClient(TestServer(await server._make_app()))
    await client.start_server()
    return client


@contextlib.asynccontextmanager
async def student_in_class(tmp_path, monkeypatch, name: str = "Alice", size: str = "width=100&height=30"):
    """A class server and a client; `name` has joined in English and their first page (of `size`) shows the
    course. Yields (server, client, page); the client is closed after."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    server = make_server(tmp_path)
    client = await client_for(server)
    try:
        await client.post("/join", data={"name": name, "lang": "en"})
        page = await client.ws_connect(f"/ws?{size}")
        await read_until(page, "Trying autograd")
        yield server, client, page
    finally:
        await client.close()


def test_codes_and_local_hosts():
    code = generate_code()
    assert re.fullmatch(r"[A-HJ-NP-Z2-9]{6}", code)
    assert normalise_code(" ab c9x ") == "ABC9X"
    assert all(is_local(host) for host in ("127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"))
    assert not any(is_local(host) for host in ("0.0.0.0", "::", "192.168.1.5", "example.org"))


@pytest.mark.parametrize("host, code, expected", [
    ("127.0.0.1", None, None), ("localhost", "abc def", "ABCDEF"), ("0.0.0.0", None, "generated"),
    ("192.168.1.5", "k7qx3m", "K7QX3M"),
])
def test_serve_requires_a_code_beyond_localhost(monkeypatch, tmp_path, host, code, expected):
    from tutor.cli import main

    started = []
    monkeypatch.setattr(ClassroomServer, "serve", lambda self: started.append(self))
    arguments = ["serve", "--host", host, "--class-dir", str(tmp_path), "--max-students", "3"]
    result = CliRunner().invoke(main, arguments + (["--class-code", code] if code else []))
    assert result.exit_code == 0, result.output
    (server,) = started
    assert server.max_students == 3 and server.host == host
    if expected == "generated":
        assert re.fullmatch(r"[A-Z2-9]{6}", server.class_code)
    else:
        assert server.class_code == expected


async def test_join_page_code_and_cookie(tmp_path):
    server = make_server(tmp_path, class_code="K7QX3M")
    client = await client_for(server)
    try:
        page = await client.get("/", headers={"Accept-Language": "ja,en;q=0.8"})
        text = await page.text()
        assert page.status == 200 and 'lang="ja"' in text and "クラスコード" in text and "x.grad を予想して" in text
        assert page.headers["X-Frame-Options"] == "DENY" and "default-src 'self'" in page.headers["Content-Security-Policy"]
        assert "googleapis" not in text and "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")
        refused = await client.post("/join", data={"name": "Alice", "code": "WRONG1", "lang": "en"}, allow_redirects=False)
        assert refused.status == 403 and "class code is not right" in await refused.text()
        assert COOKIE not in refused.cookies
        assert (await client.get("/tutor", allow_redirects=False)).status == 303  # no session: back to the join page
        joined = await client.post("/join", data={"name": "  alice ", "code": "k7q x3m", "lang": "en"},
                                   allow_redirects=False)
        assert joined.status == 303 and joined.headers["Location"] == "/welcome"  # a new student: their code first
        cookie = joined.cookies[COOKIE]
        assert cookie["httponly"] and cookie["samesite"] == "Strict"
        welcome = await (await client.get("/welcome")).text()
        assert re.search(r'id="personal-code"[^>]*>[A-Z2-9]{4}-[A-Z2-9]{4}<', welcome)
        assert (await client.get("/welcome", allow_redirects=False)).headers["Location"] == "/tutor"  # shown once
        tutor = await client.get("/tutor")
        text = await tutor.text()
        assert tutor.status == 200 and "alice — autograd-tutor" in text and "/static/js/textual.js" in text
        assert re.search(r'data-session-websocket-url="ws://127\.0\.0\.1:\d+/ws"', text)
        again = await client.get("/")
        assert "Continue as alice" in await again.text()
        assert (tmp_path / "class" / "students" / "alice" / "student.json").exists()
    finally:
        await client.close()


async def test_wrong_codes_slow_down_but_never_lock_out_the_right_code(tmp_path):
    """A class behind one NAT address: a flood of wrong codes is answered ever more slowly (then 429), yet a
    classmate with the right code gets in at once."""
    from tutor.classroom.limits import Backoff

    server = make_server(tmp_path, class_code="K7QX3M")
    server._backoff = Backoff(free=3, first_delay=0.2, max_delay=0.2)
    client = await client_for(server)
    try:
        statuses = [(await client.post("/join", data={"name": "Eve", "code": f"BAD{i}"})).status for i in range(5)]
        assert statuses == [403] * 5
        assert server._backoff.failures("address:127.0.0.1") == 5
        flood = [asyncio.create_task(client.post("/join", data={"name": "Eve", "code": f"X{i}"})) for i in range(20)]
        await asyncio.sleep(0.05)
        right = await client.post("/join", data={"name": "Ann", "code": "K7QX3M"}, allow_redirects=False)
        assert right.status == 303  # while the flood waits out its backoff
        statuses = sorted([(await task).status for task in flood])
        assert 403 in statuses and 429 in statuses  # those past MAX_PENDING_REFUSALS are refused at once
    finally:
        await client.close()


def test_backoff_and_rate():
    from tutor.classroom.limits import Backoff, Rate

    clock = [0.0]
    backoff = Backoff(free=2, first_delay=1.0, max_delay=8.0, quiet=60.0, now=lambda: clock[0])
    assert [backoff.failed("a") for _ in range(7)] == [0, 0, 1.0, 2.0, 4.0, 8.0, 8.0]
    assert backoff.failed("b") == 0  # per key
    clock[0] = 61.0
    assert backoff.failed("a") == 0  # a quiet minute forgets
    rate = Rate(3, now=lambda: clock[0])
    assert [rate.allow() for _ in range(4)] == [True, True, True, False]
    clock[0] += 60
    assert rate.allow()


async def test_names_and_roster(tmp_path):
    (tmp_path / "class").mkdir()
    client = await client_for(make_server(tmp_path))
    try:
        for bad, message in (("", "Please give your name"), ("x" * 40, "at most 32"), ("a\u200bb", "U+200B")):
            response = await client.post("/join", data={"name": bad, "lang": "en"}, allow_redirects=False)
            assert response.status == 400 and message in await response.text()
        (tmp_path / "class" / "roster.txt").write_text("Alice\n田中 太郎\n", encoding="utf-8")
        page = await (await client.get("/?lang=en")).text()
        assert "<select" in page and "<option>田中 太郎</option>" in page
        response = await client.post("/join", data={"name": "Mallory", "lang": "en"}, allow_redirects=False)
        assert response.status == 403 and "not on the class list" in await response.text()
        response = await client.post("/join", data={"name": "田中　太郎", "lang": "ja"}, allow_redirects=False)
        assert response.status == 303  # the ideographic space is NFKC-equal to the roster's
        assert [p.name for p in (tmp_path / "class" / "students").iterdir()] == ["田中_太郎"]
    finally:
        await client.close()


class Present:
    """A connected student's connection as the cap sees it: its page open (`leaving` False) or closed."""

    def __init__(self, leaving: bool = False) -> None:
        self.leaving = leaving


async def test_full_class_page(tmp_path):
    server = make_server(tmp_path, max_students=1)
    client = await client_for(server)
    try:
        await client.post("/join", data={"name": "Alice", "lang": "en"})
        server._connections["somebody-else"] = Present()  # one student connected
        full = await client.get("/tutor")
        page = await full.text()
        assert full.status == 503 and "The class is full" in page and "1 students" in page
        assert '<meta http-equiv="refresh" content="5">' in page and "every 5 seconds" in page  # it asks again
        server._connections.clear()
        assert (await client.get("/tutor")).status == 200
    finally:
        await client.close()


async def test_a_place_being_freed_is_waited_for(tmp_path):
    """A student whose page has closed holds their place until their tutor has ended (the memory bound); a
    student arriving then waits for the place instead of being told the class is full."""
    server = make_server(tmp_path, max_students=1)
    client = await client_for(server)
    try:
        await client.post("/join", data={"name": "Carol", "lang": "en"})
        bob = server._connections["bob"] = Present(leaving=True)

        async def bob_ends():
            await asyncio.sleep(0.5)
            bob.leaving = False
            del server._connections["bob"]

        ending = asyncio.create_task(bob_ends())
        response = await client.get("/tutor")
        assert ending.done() and response.status == 200 and "/ws\"" in await response.text()  # the terminal page
    finally:
        await client.close()


async def test_websocket_needs_a_session_and_the_same_origin(tmp_path):
    client = await client_for(make_server(tmp_path))
    try:
        response = await client.get("/ws", headers={"Upgrade": "websocket", "Connection": "Upgrade"})
        assert response.status == 403
        await client.post("/join", data={"name": "Alice", "lang": "en"})
        with pytest.raises(Exception):
            await client.ws_connect("/ws", headers={"Origin": "http://evil.example"})
    finally:
        await client.close()


async def test_each_student_gets_their_own_tutor_process(tmp_path, monkeypatch):
    """Two students connect over WebSocket (as the page's script does): each gets the course, in their
    own process and data folder. Alice's second tab is told her tutor is open elsewhere (and kicks nobody);
    taking over closes the first tab with its reason, and her tutor moves to the new tab (the same process,
    still one per student). Her name from another computer needs her personal code."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    server = make_server(tmp_path)
    clients = [await client_for(server) for _ in range(2)]
    clients.append(TestClient(clients[0].server))  # Alice on another computer, same server
    await clients[2].start_server()
    try:
        sockets = []
        for client, name, lang in zip(clients, ("Alice", "Bob"), ("en", "ja")):
            await client.post("/join", data={"name": name, "lang": lang}, allow_redirects=False)
        code = re.search(r'id="personal-code"[^>]*>([A-Z2-9-]+)<', await (await clients[0].get("/welcome")).text())[1]
        for client, expected in zip(clients[:2], ("Trying autograd", "Autograd を試す")):
            sockets.append(Page(await client.ws_connect("/ws?width=100&height=30")))
            await sockets[-1].shows(expected)
        pids = server.student_pids()
        assert len(pids) == 2 and len(set(pids.values())) == 2
        assert str(tmp_path / "class" / "students" / "alice" / "progress.sqlite3") in open_files(pids["alice"])

        taken = await clients[2].post("/join", data={"name": "ALICE", "lang": "en"}, allow_redirects=False)
        assert taken.status == 403 and "personal code" in await taken.text()
        wrong = await clients[2].post("/join", data={"name": "Аlice", "personal": "AAAA-AAAA"}, allow_redirects=False)
        assert wrong.status == 403 and "not right" in await wrong.text()  # Cyrillic А: still Alice's name
        joined = await clients[2].post("/join", data={"name": "alice", "personal": code.lower()}, allow_redirects=False)
        assert joined.status == 303 and joined.headers["Location"] == "/tutor"

        second = await clients[2].ws_connect("/ws?width=100&height=30")
        await read_until(second, None)
        assert second.close_code == CLOSE_ELSEWHERE and server.student_pids()["alice"] == pids["alice"]
        third = Page(await clients[2].ws_connect("/ws/takeover?width=100&height=30"))
        await sockets[0].ends()  # the first tab is closed, saying why
        assert sockets[0].socket.close_code == CLOSE_REPLACED
        await third.shows("Trying autograd")
        assert server.student_pids() == pids  # one tutor per student: the same one, on the new tab
        os.kill(pids["bob"], 9)  # Bob's tutor dies: his page is closed; Alice goes on
        await sockets[1].ends()
        assert await eventually(lambda: "bob" not in server.student_pids()) and "alice" in server.student_pids()
        await third.socket.send_str('["ping", "1"]')
        await third.shows('["pong", "1"]')
    finally:
        for page in sockets:
            await page.close()
        left = list(server.student_pids().values())
        for client in clients:
            await client.close()
        for pid in left:
            if process_alive(pid):
                os.kill(pid, 9)


class Page:
    """A student's page, as a browser has it: it reads the terminal all the time, so it answers the server's
    heartbeat (a socket nobody reads does not, and the server closes it after about 22 s) whatever the test
    is doing meanwhile; `shows` waits for what it has drawn since the last `mark`."""

    def __init__(self, socket) -> None:
        self.socket = socket
        self.seen = ""  # terminal text (escape sequences removed) and text messages, since the last mark
        self.changed = asyncio.Event()
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self.socket:  # (aiohttp answers pings as it reads)
            data = message.data
            text = data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data)
            self.seen += re.sub(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]", "", text)
            self.changed.set()
        self.changed.set()

    def mark(self) -> None:
        self.seen = ""

    async def shows(self, text: str, seconds: float = 30.0) -> None:
        await asyncio.wait_for(self._until(lambda: text in self.seen, f"closed before {text!r} showed"), seconds)

    async def ends(self, seconds: float = 30.0) -> None:
        """Until the server has closed the page."""
        await asyncio.wait_for(self._until(lambda: self.reader.done(), ""), seconds)

    async def _until(self, condition, closed: str) -> None:
        while not condition():
            if self.reader.done():
                raise AssertionError(closed)
            self.changed.clear()
            await self.changed.wait()

    async def close(self) -> None:
        await self.socket.close()
        await self.reader


async def eventually(condition, seconds: float = 20.0) -> bool:
    """Whether `condition()` holds within `seconds` (the server's clean-up after a page closes)."""
    for _ in range(int(seconds * 20)):
        if condition():
            return True
        await asyncio.sleep(0.05)
    return condition()


async def read_until(socket, text: str | None, seconds: float = 30.0) -> str:
    """Collect the terminal output until `text` shows (None: until the server closes the socket)."""
    seen = ""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while loop.time() < deadline:
        message = await socket.receive(timeout=deadline - loop.time())
        if message.type.name in ("CLOSE", "CLOSED", "CLOSING"):
            if text is None:
                return seen
            raise AssertionError(f"closed before {text!r} showed")
        if isinstance(message.data, bytes):
            seen += re.sub(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]", "", message.data.decode("utf-8", "replace"))
            if text is not None and text in seen:
                return seen
    raise AssertionError(f"{text!r} did not show in {seconds} s")


def open_files(pid: int) -> set[str]:
    found = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            found.add(os.readlink(fd))
        except OSError:
            continue
    return found


def process_alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


# ---------------------------------------------------------------------------- the zygote


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


async def wait_until_gone(pid: int, seconds: float = 20.0) -> bool:
    for _ in range(int(seconds * 10)):
        if not process_alive(pid):
            return True
        await asyncio.sleep(0.1)
    return False


async def connect(first: TestClient, name: str, lang: str = "en") -> tuple[TestClient, Page]:
    """A student in their own browser (cookie jar), on the server `first` serves."""
    client = TestClient(first.server)
    await client.start_server()
    await client.post("/join", data={"name": name, "lang": lang})
    page = Page(await client.ws_connect("/ws?width=100&height=30"))
    await page.shows("Trying autograd" if lang == "en" else "Autograd を試す")
    return client, page


async def leave(server: ClassroomServer, first: TestClient, clients) -> None:
    """Every student closes their page and their tutor quits, then the server stops."""
    processes = [*server.student_pids().values(),
                 *(c.service._process.pid for c in server._connections.values() if c.service and c.service._process)]
    for _client, page in clients:
        await page.close()
    for pid in processes:
        await wait_until_gone(pid)
    for client, _socket in clients:
        await client.close()
    await first.close()


def launcher_pid(server: ClassroomServer, key: str) -> int:
    return server._connections[key].service._process.pid


async def test_tutors_are_forked_from_the_zygote(tmp_path, monkeypatch):
    """A student's tutor is a child of the zygote, not the launcher textual-serve started; killing the
    launcher (as the server does when a tutor will not quit) ends the tutor; a tutor that dies leaves
    the zygote and the other students alone."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    server = make_server(tmp_path)
    first = await client_for(server)
    clients = []
    try:
        for name in ("Alice", "Bob", "Carol"):
            clients.append(await connect(first, name))
        pids = server.student_pids()
        zygote = server.zygote.pid
        for key, pid in pids.items():
            assert parent_of(pid) == zygote and launcher_pid(server, key) != pid
            assert parent_of(launcher_pid(server, key)) == os.getpid()  # textual-serve's process: the launcher
            assert str(tmp_path / "class" / "students" / key / "progress.sqlite3") in open_files(pid)
        assert not any(".sock" in path for path in open_files(pids["alice"]))  # nothing of the zygote's

        os.kill(launcher_pid(server, "alice"), 9)
        assert await wait_until_gone(pids["alice"])
        await clients[0][1].ends()  # Alice's page is told her session ended

        os.kill(pids["bob"], 9)
        await clients[1][1].ends()
        assert server.zygote.alive() and await eventually(lambda: set(server.student_pids()) == {"carol"})
        clients[2][1].mark()
        await clients[2][1].socket.send_str('["resize", {"width": 90, "height": 28}]')
        await clients[2][1].shows("Trying autograd")  # Carol's tutor redraws: it still runs
        carol = server.student_pids()["carol"], launcher_pid(server, "carol")
    finally:
        await leave(server, first, clients)
    assert not server.zygote.alive()  # stopped with the server
    assert all([await wait_until_gone(pid) for pid in carol])


async def test_without_the_zygote_a_student_still_gets_a_tutor(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    server = make_server(tmp_path)
    first = await client_for(server)
    clients = []
    try:
        clients.append(await connect(first, "Alice"))
        os.kill(server.zygote.pid, 9)
        server.zygote.process.wait()
        # each page answers the server's heartbeat while the next student's tutor starts without the zygote
        # (slowly, on a loaded machine: Bob's page used to be closed for it, and gone from the server's table)
        for name in ("Bob", "Carol"):
            clients.append(await connect(first, name, "ja"))
        pids = server.student_pids()
        assert launcher_pid(server, "bob") == pids["bob"]  # the launcher runs the tutor itself
        assert process_alive(pids["alice"])  # the students forked before go on
        warnings = [record for record in caplog.records if "zygote is not running" in record.getMessage()]
        assert len(warnings) == 1  # said once, not per student
    finally:
        await leave(server, first, clients)


def test_the_zygote_imports_the_tutor_not_the_engine():
    """The zygote holds only what every tutor imports before its first screen: no thread (a fork
    would not copy it), and not numpy, sympy or the engine (the sandbox worker's business)."""
    from tutor.classroom.zygote import PRELOAD

    script = ("import importlib, sys, threading\n"
              f"for name in {PRELOAD!r}: importlib.import_module(name)\n"
              "print(threading.active_count(), sorted({m.split('.')[0] for m in sys.modules if m != 'engine.wording'} & {'numpy', 'sympy', 'engine'}))")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert result.stdout.split(None, 1) == ["1", "[]\n"], result.stderr
    assert "tutor.app" in PRELOAD and "textual.drivers.web_driver" in PRELOAD


# ---------------------------------------------------------------------------- the warm snippet worker


def waiting_for_forks(pid: int, seconds: float = 180.0) -> bool:
    """Whether the warm worker has finished preloading: asleep in its fork loop's epoll (its preload never
    waits there), within `seconds` (a loaded machine takes long over the imports)."""
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/wchan").read_text() == "do_epoll_wait":
                return True
        except OSError:
            return False
        time.sleep(0.2)
    return False


@pytest.mark.skipif(not Path("/proc/self/wchan").exists(), reason="needs Linux /proc")
def test_a_students_snippet_worker_is_forked_warm_and_counted_as_theirs(monkeypatch):
    """The tutor's worker, started as usual (`engine.sandbox.client.Worker`) but with the class's launcher in
    front, is a child of the warm worker: it runs snippets confined as a fresh worker does, is in the tutor's
    process tree for the memory limit (it shares its launcher's stdin), and without the warm worker the
    launcher starts one from scratch."""
    from engine.sandbox.client import WARM_WORKER, Worker, run_program
    from tutor.classroom import sandbox
    from tutor.classroom.server import process_children, process_tree

    warm = sandbox.warm_worker()
    warm.start()
    workers = []
    try:
        assert waiting_for_forks(warm.pid)
        monkeypatch.setenv(WARM_WORKER, sandbox.environment(warm)[WARM_WORKER])
        for _ in range(2):
            workers.append(Worker())
            assert workers[-1].confinement().confined
        launchers = [worker._process.pid for worker in workers]
        forked = [pid for pid in process_children()[warm.pid]]
        assert len(forked) == 2 and all(parent_of(pid) == warm.pid for pid in forked)
        trees = [process_tree(launcher, process_children((warm.pid,))) for launcher in launchers]
        assert sorted(tree[1] for tree in trees) == sorted(forked) and all(len(tree) == 2 for tree in trees)

        import engine.sandbox.client as client

        monkeypatch.setitem(client._WORKERS, "full", workers[0])
        run = run_program("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\n(x * x).sum().backward()\n"
                          "print(x.grad)", expressions=["x.grad"])
        assert run.error is None and run.stdout.strip() == "tensor([2., 4.])", run
        assert list(run.values[0]["value"]) == [2.0, 4.0]

        workers[0].close()  # the tutor goes: its worker ends, the warm one and the other student's go on
        assert warm.alive() and process_alive(forked[1]) and await_gone(forked[0])
        warm.stop()
        alone = Worker()
        workers.append(alone)
        assert alone.confinement().confined and parent_of(alone._process.pid) == os.getpid()
    finally:
        for worker in workers:
            worker.close()
        warm.stop()


async def test_a_students_snippet_worker_starts_after_the_course_view_is_drawn(tmp_path, monkeypatch):
    """A student's tutor starts its snippet worker WARM_UP_DELAY after its course view is drawn (a class opens
    the page at once): the timer is set on the app's loop, not from the warm-up thread (which has none: no
    worker started until a lesson needed one, and the thread died with 'no running event loop')."""
    import threading

    from class_data import COURSE

    from tutor.classroom import student_app

    failures = []
    monkeypatch.setattr(threading, "excepthook", failures.append)
    monkeypatch.setattr(student_app, "WARM_UP_DELAY", 2.0)
    app = student_app.make_app({"AUTOGRAD_TUTOR_DATA_DIR": str(tmp_path / "alice"), "AUTOGRAD_TUTOR_LANG": "en",
                                "AUTOGRAD_TUTOR_CLASS_LESSONS": str(COURSE), "AUTOGRAD_TUTOR_CLASS_BUNDLED": "0"})
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.confinement is None and "warm-up" not in [thread.name for thread in threading.enumerate()]
        assert await eventually(lambda: app.confinement is not None, 120.0), failures
        assert app.confinement.started and not failures


def await_gone(pid: int) -> bool:
    return asyncio.run(wait_until_gone(pid))


def test_the_zygote_shares_parsed_css_between_apps_but_never_across_themes(monkeypatch):
    """Every student's tutor makes its own stylesheet; in the zygote's children they reuse the rules parsed once,
    keyed by the CSS, its origin and the theme's variables: another theme's colours are parsed apart."""
    from textual.css.stylesheet import Stylesheet

    from tutor.classroom.zygote import share_css_parses

    monkeypatch.setattr(Stylesheet, "_parse_rules", Stylesheet._parse_rules)  # restored after the test
    share_css_parses()

    def parsed(colour: str) -> list:
        sheet = Stylesheet(variables={"accent": colour})
        sheet.add_source("Label { color: $accent; }", read_from=("test.tcss", "Label"))
        sheet.parse()
        return sheet.rules

    red, red_again, blue = parsed("red"), parsed("red"), parsed("blue")
    assert red[0] is red_again[0]
    assert blue[0] is not red[0] and blue[0].styles.color != red[0].styles.color


def test_the_zygote_warms_up_without_running_a_teacher_s_snippet(tmp_path):
    """A class on a teacher's own lessons (the template's first step has a snippet, its output not shipped as
    the bundled course's is): the warm-up visit must not run it, which would start the engine and the worker's
    threads, and the zygote refuse to fork (each student's tutor then started alone, slower)."""
    from tutor.cli import main

    assert CliRunner().invoke(main, ["new", "first", "--dir", str(tmp_path / "pack")]).exit_code == 0
    script = ("import importlib, sys, threading\n"
              "from tutor.classroom import zygote\n"
              "for name in zygote.PRELOAD: importlib.import_module(name)\n"
              "from lessons.course import load_course\n"
              "from tutor.classroom.student_app import class_lessons\n"
              "folders, bundled = class_lessons(__import__('os').environ)\n"
              "load_course(folders, user_dir=None, include_bundled=bundled)\n"
              "zygote.share_css_parses()\n"
              "zygote._warm_screens()\n"
              "print(threading.active_count(), sorted({m.split('.')[0] for m in sys.modules if m != 'engine.wording'} & {'numpy', 'sympy', 'engine'}))")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120,
                            env=dict(os.environ, PYTHONPATH=str(ROOT), AUTOGRAD_TUTOR_CLASS_LESSONS=str(tmp_path / "pack"),
                                     AUTOGRAD_TUTOR_CLASS_BUNDLED="0", AUTOGRAD_TUTOR_DATA_DIR=str(tmp_path / "data")))
    assert result.stdout.split(None, 1) == ["1", "[]\n"], result.stdout + result.stderr
