"""The app where snippets cannot be confined: only the bundled course, said once, unless trusted."""
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent.parent / "app" / "fixtures"


@pytest.fixture
def unconfined(monkeypatch):
    """A fresh worker whose zygote behaves as on a system without seccomp."""
    from engine.sandbox import client

    monkeypatch.setenv("AUTOGRAD_TUTOR_UNCONFINED", "1")
    monkeypatch.setattr(client, "_WORKERS", {})
    yield
    for worker in client._WORKERS.values():
        worker.close()


async def _settled(app, pilot, condition):
    for _ in range(600):
        await pilot.pause(0.05)
        if condition():
            return
    raise AssertionError("the app never got there")


@pytest.mark.parametrize("trusted", [False, True])
async def test_unconfined_app_keeps_only_the_bundled_course(unconfined, data_dir, trusted):
    from tutor.app import TutorApp

    app = TutorApp(lang="en", extra_dirs=[FIXTURES / "course"], data_dir=data_dir, trust_lessons=trusted)
    async with app.run_test(size=(120, 40)) as pilot:
        assert any(lesson.id == "fixture-squares" for lesson in app.course.lessons)
        await _settled(app, pilot, lambda: app.confinement is not None)
        await pilot.pause(0.1)
        ids = {lesson.id for lesson in app.course.lessons}
        notices = [n.message for n in app._notifications]
        if trusted:
            assert "fixture-squares" in ids and not any("sandboxed" in m for m in notices)
        else:
            assert "fixture-squares" not in ids and "trying-autograd" in ids
            assert sum("cannot be sandboxed" in m for m in notices) == 1


@pytest.fixture
def broken_worker(monkeypatch, tmp_path):
    """Fresh workers whose zygote fails as it starts, saying why on stderr (as a broken install does)."""
    from engine.sandbox import client

    stand_in = tmp_path / "zygote.py"
    stand_in.write_text("raise ImportError('libopenblas.so.0: cannot open shared object file')\n")
    monkeypatch.setattr(client, "ZYGOTE", str(stand_in))
    monkeypatch.setattr(client, "_WORKERS", {})
    yield
    for worker in client._WORKERS.values():
        worker.close()


@pytest.mark.parametrize("lang", ["en", "ja"])
async def test_a_worker_that_cannot_start_is_the_tutors_problem_not_the_lessons(broken_worker, data_dir, lang):
    from tutor.app import TutorApp

    app = TutorApp(lang=lang, extra_dirs=[FIXTURES / "course"], data_dir=data_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await _settled(app, pilot, lambda: app.confinement is not None)
        app.open_lesson("fixture-squares", "predict-grad")
        await _settled(app, pilot, lambda: bool(app.screen.query("#feedback")))
        feedback = str(app.screen.query_one("#feedback").render())
        notices = " ".join(n.message for n in app._notifications)
        ids = {lesson.id for lesson in app.course.lessons}
    cause = "ImportError: libopenblas.so.0: cannot open shared object file"
    assert cause in feedback and cause in notices
    if lang == "en":
        assert "not with the lesson" in feedback and "not with your lessons" in notices
    else:
        assert "レッスンの問題ではありません" in feedback and "レッスンの問題ではありません" in notices
    for text in (feedback, notices):
        assert "--trust-lessons" not in text and "author" not in text and "作者" not in text
    assert "fixture-squares" in ids      # no lesson is hidden or blamed for the tutor's problem


def test_the_cli_says_a_worker_that_cannot_start_is_the_tutors_problem(broken_worker, tmp_path):
    from click.testing import CliRunner

    from tutor.cli import main

    snippet = tmp_path / "s.py"
    snippet.write_text("print(1)\n")
    for args in (["run", str(snippet)], ["check", str(FIXTURES / "course")], ["explain", str(snippet)]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, result.output
        assert "ImportError: libopenblas.so.0" in result.output and "not with your files" in result.output
        assert "--trust-lessons" not in result.output and "Traceback" not in result.output


def test_the_cause_is_read_even_when_the_stderr_reader_lags(broken_worker, monkeypatch, tmp_path):
    """A loaded machine may run the stderr reader after the failed zygote is reaped: its last words still count."""
    import time

    from engine.sandbox import client

    drain = client._drain

    def late(stream, said):
        time.sleep(0.5)
        drain(stream, said)

    monkeypatch.setattr(client, "_drain", late)
    confinement = client.worker().confinement()
    assert not confinement.started and "ImportError: libopenblas.so.0" in confinement.reason
