"""Shared set-up for the app's pilot and snapshot tests: a fresh data folder and fixture lessons."""
import asyncio
import inspect
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """A throw-away progress/user-lesson folder, also set in the environment for child code."""
    folder = tmp_path / "data"
    monkeypatch.setenv("AUTOGRAD_TUTOR_DATA_DIR", str(folder))
    return folder


@pytest.fixture
def make_app(data_dir):
    """A TutorApp on the fixture course only (no bundled lessons), in English unless told."""
    from tutor.app import TutorApp

    def make(lang="en", folders=("course",), **options):
        return TutorApp(lang=lang, extra_dirs=[FIXTURES / f for f in folders], data_dir=data_dir,
                        include_bundled=False, **options)

    return make


@pytest.fixture
def fixtures_dir():
    return FIXTURES


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """Run `async def` tests (pilots) on a fresh event loop; the suite has no asyncio plugin."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        arguments = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        asyncio.run(pyfuncitem.obj(**arguments))
        return True
    return None
