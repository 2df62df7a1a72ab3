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
