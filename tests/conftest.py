"""Set-up shared by the whole suite: a throw-away data folder, and `async def` tests run on their own loop."""
import asyncio
import inspect

import pytest


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """A throw-away progress/user-lesson folder, also set in the environment for child code."""
    folder = tmp_path / "data"
    monkeypatch.setenv("AUTOGRAD_TUTOR_DATA_DIR", str(folder))
    return folder


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """Run `async def` tests (Textual pilots) on a fresh event loop; the suite has no asyncio plugin."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        arguments = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        asyncio.run(pyfuncitem.obj(**arguments))
        return True
    return None
