"""A page that comes back (a reload) finds its tutor still running: the same process, drawn again whole on the
new page; a page that does not come back still ends its processes within STOP_SECONDS; a page in another
language, or after the tutor has quit, gets a new tutor, only once the old one has ended."""
import asyncio
import re
import time

from test_classroom_server import eventually, process_alive, read_until, student_in_class, wait_until_gone

from tutor.classroom.server import STOP_SECONDS

MODES = (b"\x1b[?1049h", b"\x1b[?1000h", b"\x1b[?1006h", b"\x1b[?25l", b"\x1b[?2004h")  # alt screen, mouse, no cursor, paste


async def read_after_modes(socket, texts: tuple[str, ...], seconds: float = 30.0) -> str:
    """The text the page's terminal shows once the terminal modes have been set: read until every one of
    `texts` has been drawn after them."""
    raw, loop = b"", asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while loop.time() < deadline:
        message = await socket.receive(timeout=deadline - loop.time())
        assert isinstance(message.data, bytes), f"closed or text before the screen was drawn: {message}"
        raw += message.data
        if all(mode in raw for mode in MODES):
            start = max(raw.rfind(mode) for mode in MODES)
            shown = re.sub(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]", "", raw[start:].decode("utf-8", "replace"))
            if all(text in shown for text in texts):
                return shown
    raise AssertionError(f"{texts!r} not drawn after the terminal modes in {seconds} s")


async def test_a_reloaded_page_finds_its_tutor_still_running(tmp_path, monkeypatch):
    async with student_in_class(tmp_path, monkeypatch) as (server, client, page):
        await page.send_json(["stdin", "\r"])
        await read_until(page, "Step 1 of")
        tutor = server.student_pids()["alice"]
        await page.close()

        page = await client.ws_connect("/ws?width=100&height=30")  # the same size: nothing to lay out again
        await read_after_modes(page, ("autograd-tutor — Alice", "Step 1 of", "Quit"))  # the whole screen
        assert server.student_pids() == {"alice": tutor}
        await page.send_json(["stdin", "n"])  # and it answers this page's keys
        await read_until(page, "Step 2 of")

        closed = time.monotonic()  # the page goes for good
        await page.close()
        assert await wait_until_gone(tutor, 3 * STOP_SECONDS)
        assert time.monotonic() - closed < STOP_SECONDS
        assert await eventually(lambda: not server._connections)  # the place is free


async def test_another_language_or_a_tutor_that_quit_gets_a_new_tutor(tmp_path, monkeypatch):
    async with student_in_class(tmp_path, monkeypatch) as (server, client, page):
        english = server.student_pids()["alice"]
        await page.close()
        await client.post("/join", data={"name": "Alice", "lang": "ja"})  # (her browser's secret cookie)
        page = await client.ws_connect("/ws?width=100&height=30")
        await read_until(page, "Autograd を試す")
        japanese = server.student_pids()["alice"]
        assert japanese != english and not process_alive(english)  # one tutor at a time

        await page.send_json(["stdin", "\x11"])  # ctrl+q: she quits; her page says the session ended
        await read_until(page, None)
        assert await wait_until_gone(japanese)
        page = await client.ws_connect("/ws?width=100&height=30")  # the page's Reconnect
        await read_until(page, "Autograd を試す")
        assert server.student_pids()["alice"] not in (english, japanese)
        await page.close()
