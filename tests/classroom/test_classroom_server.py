"""The classroom server without a browser: join page, class code, roster, cap, cookies, origin, one process per student.

These run everywhere (no Chromium needed); tests/serve drives the same server from a real browser.
"""
import asyncio
import os
import re
import sys
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer
from click.testing import CliRunner

from tutor.classroom.server import COOKIE, ClassroomServer, generate_code, is_local, normalise_code

ROOT = Path(__file__).resolve().parents[2]


def make_server(tmp_path, **options) -> ClassroomServer:
    options.setdefault("lang", "en")
    return ClassroomServer(tmp_path / "class", **options)


async def client_for(server: ClassroomServer) -> TestClient:
    client = TestClient(TestServer(await server._make_app()))
    await client.start_server()
    return client


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
        assert joined.status == 303 and joined.headers["Location"] == "/tutor"
        cookie = joined.cookies[COOKIE]
        assert cookie["httponly"] and cookie["samesite"] == "Strict"
        tutor = await client.get("/tutor")
        text = await tutor.text()
        assert tutor.status == 200 and "alice — autograd-tutor" in text and "/static/js/textual.js" in text
        assert re.search(r'data-session-websocket-url="ws://127\.0\.0\.1:\d+/ws"', text)
        again = await client.get("/")
        assert "Continue as alice" in await again.text()
        assert (tmp_path / "class" / "students" / "alice" / "student.json").exists()
    finally:
        await client.close()


async def test_wrong_codes_are_throttled(tmp_path):
    client = await client_for(make_server(tmp_path, class_code="K7QX3M"))
    try:
        from tutor.classroom.server import FAILURES_ALLOWED

        statuses = [(await client.post("/join", data={"name": "Eve", "code": f"BAD{i}"})).status
                    for i in range(FAILURES_ALLOWED + 2)]
        assert statuses[:FAILURES_ALLOWED] == [403] * FAILURES_ALLOWED and statuses[FAILURES_ALLOWED:] == [429, 429]
        right = await client.post("/join", data={"name": "Eve", "code": "K7QX3M"}, allow_redirects=False)
        assert right.status == 429  # even the right code waits out the minute
    finally:
        await client.close()


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


async def test_full_class_page(tmp_path):
    server = make_server(tmp_path, max_students=1)
    client = await client_for(server)
    try:
        await client.post("/join", data={"name": "Alice", "lang": "en"})
        server._connections["somebody-else"] = (None, None)  # one student connected
        full = await client.get("/tutor")
        assert full.status == 503 and "The class is full" in await full.text() and "1 students" in await full.text()
        server._connections.clear()
        assert (await client.get("/tutor")).status == 200
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
    own process and data folder; a student connecting again replaces their earlier connection."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    server = make_server(tmp_path)
    clients = [await client_for(server) for _ in range(2)]
    clients.append(TestClient(clients[0].server))  # Alice's second tab, same server
    await clients[2].start_server()
    try:
        sockets = []
        for client, name, lang in zip(clients, ("Alice", "Bob", "Alice"), ("en", "ja", "en")):
            await client.post("/join", data={"name": name, "lang": lang})
        for client, expected in zip(clients[:2], ("Trying autograd", "Autograd を試す")):
            socket = await client.ws_connect("/ws?width=100&height=30")
            sockets.append(socket)
            await read_until(socket, expected)
        pids = server.student_pids()
        assert len(pids) == 2 and len(set(pids.values())) == 2
        assert environment(pids["alice"])["AUTOGRAD_TUTOR_DATA_DIR"].endswith(os.path.join("students", "alice"))
        third = await clients[2].ws_connect("/ws?width=100&height=30")
        await read_until(sockets[0], "another tab")  # the first tab is told, then closed
        await read_until(third, "Trying autograd")
        assert len(server.student_pids()) == 2 and server.student_pids()["alice"] != pids["alice"]
        for _ in range(100):
            if not process_alive(pids["alice"]):
                break
            await asyncio.sleep(0.1)
        assert not process_alive(pids["alice"])
        os.kill(pids["bob"], 9)  # Bob's tutor dies: his page is closed; Alice goes on
        await read_until(sockets[1], None)
        assert "bob" not in server.student_pids() and "alice" in server.student_pids()
        await third.send_str('["ping", "1"]')
        await read_until(third, None, text_message='["pong", "1"]')
    finally:
        left = list(server.student_pids().values())
        for client in clients:
            await client.close()
        for pid in left:
            if process_alive(pid):
                os.kill(pid, 9)


async def read_until(socket, text: str | None, seconds: float = 30.0, text_message: str | None = None) -> str:
    """Collect the terminal output until `text` shows (None: until the server closes the socket, or
    until a text message `text_message` arrives)."""
    seen = ""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while loop.time() < deadline:
        message = await socket.receive(timeout=deadline - loop.time())
        if message.type.name in ("CLOSE", "CLOSED", "CLOSING"):
            if text is None:
                return seen
            raise AssertionError(f"closed before {text!r} showed")
        if text_message is not None and message.data == text_message:
            return seen
        if isinstance(message.data, bytes):
            seen += re.sub(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]", "", message.data.decode("utf-8", "replace"))
            if text is not None and text in seen:
                return seen
    raise AssertionError(f"{text!r} did not show in {seconds} s")


def environment(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode(errors="replace").split("=", 1) for item in raw if b"=" in item)


def process_alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"
