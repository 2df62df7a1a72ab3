"""`autograd-tutor serve` in a real headless Chromium: two students, a reload, the report, a wrong code, a full class.

One server and one browser for the whole scenario (starting them is most of the time). Screenshots go
to $AUTOGRAD_TUTOR_SCREENSHOTS (default: the test's tmp folder): English and Japanese pages.
"""
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from serve_browser import ROOT, TERMINAL_TEXT, ServedClass, join, launch, press, wait_for_text

pytestmark = pytest.mark.browser
CODE = "K7QX3M"


@pytest.fixture
def shots(tmp_path):
    folder = Path(os.environ.get("AUTOGRAD_TUTOR_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def report(class_dir: Path) -> dict:
    result = subprocess.run([sys.executable, "-m", "tutor", "class", "report", "--class-dir", str(class_dir), "--json"],
                            cwd=ROOT, capture_output=True, text=True, timeout=60,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_class_in_the_browser(tmp_path, shots):
    from playwright.sync_api import sync_playwright

    class_dir = tmp_path / "class"
    server = ServedClass(class_dir, "--class-code", CODE, "--max-students", "2")
    outside, problems = [], []
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)

            def student(lang: str):
                context = browser.new_context(viewport={"width": 1100, "height": 640}, locale=lang, bypass_csp=False)
                context.add_init_script(TERMINAL_TEXT)
                context.on("request", lambda request: None if request.url.startswith(server.url)
                           else outside.append(request.url))
                page = context.new_page()
                page.on("console", lambda message: problems.append(message.text)
                        if message.type == "error" or "Refused" in message.text else None)
                return page

            # A wrong class code is refused, and says so (the join page in Japanese).
            mallory = student("ja")
            join(mallory, server.url, "Mallory", code="WRONG9", lang="ja")
            assert "クラスコードが違います" in mallory.inner_text("#error")
            mallory.screenshot(path=shots / "join-wrong-code-ja.png")
            assert not (class_dir / "students" / "mallory").exists()

            # Alice (English) answers step 2 of the first lesson right.
            alice = student("en")
            join(alice, server.url, "Alice", code=CODE.lower(), screenshot=shots / "join-en.png")
            wait_for_text(alice, "Trying autograd")
            press(alice, "Enter")
            wait_for_text(alice, "Step 1 of 9")
            press(alice, "n")
            wait_for_text(alice, "Step 2 of 9")
            press(alice, "ArrowDown", "ArrowDown", "Enter")  # nothing is highlighted at first: the second, False
            wait_for_text(alice, "Correct!")
            alice.screenshot(path=shots / "alice-right-en.png")

            # Bob (Japanese) answers it wrong.
            bob = student("ja")
            join(bob, server.url, "Bob", code=CODE, lang="ja")
            wait_for_text(bob, "Autograd を試す")
            press(bob, "Enter")
            wait_for_text(bob, "ステップ 1 / 9")
            press(bob, "n")
            wait_for_text(bob, "ステップ 2 / 9")
            press(bob, "ArrowDown", "Enter")  # the first, True
            wait_for_text(bob, "不正解")
            bob.screenshot(path=shots / "bob-wrong-ja.png")

            # Alice reloads: her page finds her tutor still running (the same process), on the step she was on,
            # with her answer, drawn again whole.
            before = server.student_pids()["alice"]
            alice.reload()
            wait_for_text(alice, "Step 2 of 9")
            wait_for_text(alice, "autograd-tutor — Alice")
            wait_for_text(alice, "Correct!")
            alice.screenshot(path=shots / "alice-back-en.png")
            assert server.student_pids()["alice"] == before

            # A second tab of Alice says her tutor is open elsewhere (not "session ended"), and kicks nobody.
            tab = alice.context.new_page()
            tab.goto(server.url + "/tutor")
            tab.wait_for_selector("body.-closed", timeout=30_000)
            assert "open in another tab" in tab.inner_text("#ended")
            assert tab.is_visible("#take-over") and not tab.is_visible("#reconnect")
            tab.screenshot(path=shots / "second-tab-en.png")
            tab.close()
            press(alice, "n")
            wait_for_text(alice, "Step 3 of 9")  # Alice's first tab goes on

            # A third student while two are connected (the cap is 2): the class is full.
            carol = student("en")
            join(carol, server.url, "Carol", code=CODE)
            assert "The class is full" in carol.inner_text("h1")
            carol.screenshot(path=shots / "class-full-en.png")

            # The report counts both students' answers.
            document = report(class_dir)
            students = {row["name"]: row for row in document["students"]}
            assert set(students) == {"Alice", "Bob", "Carol"}
            assert (students["Alice"]["attempts"], students["Alice"]["correct"]) == (1, 1)
            assert (students["Bob"]["attempts"], students["Bob"]["correct"]) == (1, 0)
            assert students["Carol"]["attempts"] == 0
            (step,) = document["steps"]
            assert (step["step_id"], step["students"], step["first_try_right"]) == ("requires-grad-default", 2, 1)

            # Bob leaves in the middle of answering: his attempt is saved whole or not at all.
            press(bob, "s")
            bob.context.close()
            database = class_dir / "students" / "bob" / "progress.sqlite3"
            with sqlite3.connect(database) as conn:
                assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
                rows = conn.execute("SELECT outcome, (SELECT count(*) FROM attempt_concepts WHERE attempt_id = attempts.id) "
                                    "FROM attempts ORDER BY id").fetchall()
            assert rows[0] == ("wrong", 1) and rows[1:] in ([], [("revealed", 1)])  # the step's one concept

            # The server goes on: Carol, now that Bob has gone, gets in by herself: the class-full page asks again
            # every 5 s, and the server waits for Bob's place (his tutor kept 3 s for his page to come back, then
            # ended). (Navigating her page meanwhile would race with its own refresh.)
            wait_for_text(carol, "Trying autograd")
            browser.close()
    finally:
        server.stop()
    assert outside == [], f"the page asked for something outside the server: {outside}"
    assert not [text for text in problems if "Refused" in text or "Content Security Policy" in text], problems
