"""The server holds against one mischievous client (loopback only, bounded in count and time): the roster only
after the class code, new students per minute, the first terminal size clamped, idle connections evicted under
a file-descriptor limit, running out of descriptors survived, a tutor over its memory limit stopped."""
import asyncio
import logging
import os
import resource
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from test_classroom_server import ROOT, client_for, launcher_pid, make_server, read_until, student_in_class

from tutor.classroom.server import CLOSE_MEMORY, MAX_COLUMNS, MAX_ROWS, InputBucket, terminal_size


async def test_the_roster_is_shown_only_after_the_class_code(tmp_path):
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "roster.txt").write_text("Alice\n田中 太郎\n", encoding="utf-8")
    client = await client_for(make_server(tmp_path, class_code="K7QX3M"))
    try:
        page = await (await client.get("/?lang=en")).text()
        assert "Alice" not in page and "<select" not in page and 'id="code"' in page
        wrong = await client.post("/join", data={"code": "NOPE", "lang": "en"})
        assert wrong.status == 403 and "田中" not in await wrong.text()
        right = await client.post("/join", data={"code": "k7qx3m", "lang": "en"})
        page = await right.text()
        assert right.status == 200 and "<option>田中 太郎</option>" in page and 'id="code"' not in page
        joined = await client.post("/join", data={"name": "Alice", "lang": "en"}, allow_redirects=False)
        assert joined.status == 303  # admitted: the code is not asked again
    finally:
        await client.close()


async def test_new_students_per_minute_are_limited(tmp_path):
    from tutor.classroom.limits import Rate

    server = make_server(tmp_path)
    server._new_students = Rate(2)
    client = await client_for(server)
    try:
        statuses = [(await client.post("/join", data={"name": name, "lang": "en"}, allow_redirects=False)).status
                    for name in ("Ann", "Ben", "Cid")]
        assert statuses == [303, 303, 429]
        again = await client.post("/join", data={"name": "Ben", "lang": "en"}, allow_redirects=False)
        assert again.status == 303  # Ben's own browser (his cookie): not a new student
        assert sorted(p.name for p in (tmp_path / "class" / "students").iterdir()) == ["ann", "ben"]
    finally:
        await client.close()


def test_terminal_sizes_are_clamped():
    assert terminal_size("100000", "100000") == (MAX_COLUMNS, MAX_ROWS)
    assert terminal_size("-5", "x") == (10, 24) and terminal_size(None, 2**70) == (80, MAX_ROWS)


async def test_the_first_terminal_size_is_clamped_too(tmp_path, monkeypatch):
    async with student_in_class(tmp_path, monkeypatch, "Eve", "width=100000&height=100000") as (server, _, socket_):
        environ = Path(f"/proc/{launcher_pid(server, 'eve')}/environ").read_bytes().split(b"\0")
        assert f"COLUMNS={MAX_COLUMNS}".encode() in environ and f"ROWS={MAX_ROWS}".encode() in environ
        await socket_.close()


async def test_a_tutor_over_its_memory_limit_is_stopped_and_told(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    server = make_server(tmp_path, memory_per_student=10 * 1024 * 1024)  # far below a tutor's
    client = await client_for(server)
    try:
        await client.post("/join", data={"name": "Eve", "lang": "en"})
        socket_ = await client.ws_connect("/ws?width=80&height=24")
        await read_until(socket_, None, seconds=60)
        assert socket_.close_code == CLOSE_MEMORY
        for _ in range(100):
            if not server.student_pids():
                break
            await asyncio.sleep(0.1)
        assert server.student_pids() == {}
    finally:
        await client.close()


def test_input_past_the_rate_is_dropped():
    clock = [0.0]
    bucket = InputBucket(now=lambda: clock[0])
    assert [bucket.take(64 * 1024) for _ in range(3)] == [True, True, False]  # a 128 KiB paste at once, no more
    assert not bucket.take(1)  # (a message counts for at least MIN_MESSAGE_COST)
    clock[0] += 1.0
    assert bucket.take(16 * 1024) and not bucket.take(1024)  # 16 KiB a second after that


def test_running_out_of_file_descriptors_is_said_once(tmp_path, caplog):
    import errno

    server = make_server(tmp_path)
    loop = asyncio.new_event_loop()
    try:
        with caplog.at_level(logging.WARNING):
            for _ in range(3):
                server._loop_error(loop, {"message": "accept", "exception": OSError(errno.EMFILE, "Too many open files")})
    finally:
        loop.close()
    assert [record.getMessage() for record in caplog.records if "file descriptors" in record.getMessage()][0].startswith(
        "out of file descriptors (EMFILE)")
    assert len(caplog.records) == 1


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_idle_connections_under_a_small_descriptor_limit_do_not_stop_the_server(tmp_path):
    """macOS's default `ulimit -n 256`: 400 idle TCP connections, yet the join page still loads, the server is
    still running, and its log says it closed idle connections."""
    port = _free_port()

    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))

    server = subprocess.Popen([sys.executable, "-m", "tutor", "--lang", "en", "serve", "--port", str(port),
                               "--class-dir", str(tmp_path / "class"), "--max-students", "4"],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=limit,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)))
    idle = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read()
                break
            except OSError:
                time.sleep(0.3)
        for _ in range(400):
            connection = socket.socket()
            connection.setblocking(False)
            connection.connect_ex(("127.0.0.1", port))
            idle.append(connection)
        time.sleep(3)
        page = None
        for _ in range(10):
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/?lang=en", timeout=5).read().decode()
                break
            except OSError:
                time.sleep(0.5)
        assert page is not None and "autograd-tutor" in page
        assert server.poll() is None
    finally:
        for connection in idle:
            connection.close()
        server.terminate()
        output = server.communicate(timeout=30)[0].decode("utf-8", "replace")
    assert "Traceback" not in output, output
    said = " ".join(output.split())  # (the log wraps its lines)
    assert "the oldest idle ones are closed" in said and "`ulimit -n` is 256" in said


HOSTILE = "lesson\x1b]8;;http://evil.example/\x07click\x1b]8;;\x07 [/] [bold]x\x1b]0;pwned\x07\x9b31m.toml"


def test_a_log_line_shows_hostile_text_and_obeys_none_of_it():
    """A hostile file name (a lesson folder's: control characters, Rich's `[/]`, an OSC 8 link, a title change,
    a C1 CSI) in a log line and in its traceback reaches the teacher's terminal as visible text."""
    from io import StringIO

    from rich.console import Console

    from tutor.classroom.server import PlainFormatter

    out = StringIO()
    server = make_server(Path("/nonexistent"))
    server.console = Console(file=out, force_terminal=True, width=200)  # a real terminal: styles are escapes
    server.debug = False
    handler_logger = logging.getLogger("autograd-tutor.serve.test")
    from rich.logging import RichHandler

    root = logging.getLogger()
    saved = root.handlers[:]
    root.handlers.clear()
    try:
        server.initialize_logging()
        (handler,) = root.handlers
        assert isinstance(handler, RichHandler) and isinstance(handler.formatter, PlainFormatter)
        try:
            raise ValueError(f"cannot parse {HOSTILE}")
        except ValueError:
            handler_logger.exception("cannot read %s", HOSTILE)
    finally:
        root.handlers[:] = saved
    written = out.getvalue()
    shown = "".join(__import__("re").split(r"\x1b\[[0-9;]*m", written))  # Rich's own colours removed
    assert "\x1b" not in shown and "\x07" not in shown and "\x9b" not in shown, repr(shown)
    assert shown.count("␛]8;;http://evil.example/␇click") == 2 and "[/] [bold]x" in shown and "Traceback" in shown


def test_the_served_log_stays_clean_of_what_a_client_sends(tmp_path):
    """What clients send reaches the log (the access line; aiohttp's report of a header it refused, with the
    header's bytes): shown, with `[/]` as it is, never obeyed, and the server goes on."""
    sys.path.insert(0, str(ROOT / "tests" / "serve"))
    from serve_browser import ServedClass

    def send(request: bytes) -> bytes:
        with socket.create_connection(("127.0.0.1", int(server.url.rsplit(":", 1)[1])), timeout=10) as raw:
            raw.sendall(request)
            answer = b""
            while chunk := raw.recv(65536):
                answer += chunk
        return answer

    (tmp_path / "class").mkdir()
    server = ServedClass(tmp_path / "class")
    try:
        refused = send(b"GET / HTTP/1.1\r\nHost: x\r\nUser-Agent: " + HOSTILE.encode("utf-8") + b"\r\n\r\n")
        assert refused.split(b"\r\n", 1)[0].endswith(b"400 Bad Request")
        assert send(b"GET /?lang=[/]%1b]0;x HTTP/1.1\r\nHost: x\r\nUser-Agent: [/] [bold red]agent\r\n"
                    b"Connection: close\r\n\r\n").startswith(b"HTTP/1.1 200")
        page = urllib.request.urlopen(server.url + "/?lang=en", timeout=10).read().decode()
        assert "autograd-tutor" in page and server.process.poll() is None
        time.sleep(0.5)  # the access log line is written after the answer
        log = server.output()
    finally:
        server.stop()
    flat = "".join(log.split())  # (Rich wraps long lines)
    assert "GET/?lang=[/]%1b]0;x" in flat and "[/][boldred]agent" in flat
    assert "Traceback" not in log and "Errorhandlingrequestfrom127.0.0.1:refused:400" in flat  # one line
    assert not any(character in log for character in "\x1b\x07\x9b"), repr(log[-3000:])


@pytest.mark.parametrize("lang, says", [
    ("en", "autograd-tutor serve: cannot listen on 127.0.0.1 port {port}: it is in use: stop what uses it"),
    ("ja", "autograd-tutor serve: 127.0.0.1 のポート {port} は使用中のため待ち受けられません。"),
])
def test_a_port_in_use_is_said_with_the_fix_not_a_traceback(tmp_path, lang, says):
    """A second `serve` on the class's port (or any program on it): the address and what to do, exit status 1,
    and no "Serving … at" before it (the banner comes once the server listens)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "tutor", "--lang", lang, "serve", "--port", str(port),
                                 "--class-dir", str(tmp_path / "class")], cwd=ROOT, capture_output=True, text=True,
                                timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert result.returncode == 1, result.stdout + result.stderr
    assert says.format(port=port) in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert str(port) not in result.stdout  # no address announced
