"""Quiz and Stats screen tests: a fresh data folder, a fixed clock, an app on built-in quiz templates only."""
import asyncio
import inspect
from datetime import datetime, timezone

import pytest

NOW = datetime(2025, 3, 14, 12, 0, tzinfo=timezone.utc)  # the fake clock's "now"


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    folder = tmp_path / "data"
    monkeypatch.setenv("AUTOGRAD_TUTOR_DATA_DIR", str(folder))
    return folder


@pytest.fixture
def make_app(data_dir):
    """A TutorApp without lessons (quizzes use the built-in templates), English unless told."""
    from tutor.app import TutorApp

    def make(lang="en", **options):
        return TutorApp(lang=lang, data_dir=data_dir, include_bundled=False, **options)

    return make


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """Run `async def` tests (pilots) on a fresh event loop; the suite has no asyncio plugin."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        arguments = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        asyncio.run(pyfuncitem.obj(**arguments))
        return True
    return None
