"""The reveal screen never works an explanation out on the UI thread: while the sandbox child is still
at it (here held back at will), keys are handled, a progress indicator says so, and leaving drops it."""
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
from textual.widgets import TabbedContent

from tutor.screens.reveal import RevealScreen

FIXTURES = Path(__file__).parent.parent / "app" / "fixtures"
SOURCE = "import torch\nx = torch.tensor([1., 2.], requires_grad=True)\n(x ** 2).sum().backward()\n"


@pytest.fixture
def make_app(data_dir):
    from tutor.app import TutorApp

    return lambda lang="en": TutorApp(lang=lang, extra_dirs=[FIXTURES / "course"], data_dir=data_dir,
                                      include_bundled=False, symbolic_seconds=60.0)


tokens: list = []   # the cancel token of each call (what leaving the screen must cancel)


def held_back(monkeypatch):
    """explain_in_worker, made to wait for `gate` (as a slow explanation in the child would)."""
    import engine.sandbox.explanations as explanations

    gate, calls, real = threading.Event(), [], explanations.explain_in_worker

    def slow(*args, **kwargs):
        calls.append(kwargs.get("symbolic", False))
        tokens.append(kwargs.get("cancel"))
        assert gate.wait(120), "the test never let the explanation finish"
        return real(*args, **kwargs)

    monkeypatch.setattr(explanations, "explain_in_worker", slow)
    return gate, calls


async def open_reveal(pilot) -> RevealScreen:
    step = SimpleNamespace(expression="x.grad", explanation=None)
    pilot.app.open_explanation(None, step, SimpleNamespace(kind="text", value="(see the panels)"), SOURCE)
    await pilot.pause()
    assert isinstance(pilot.app.screen, RevealScreen)
    return pilot.app.screen


def text(screen, selector) -> str:
    return " ".join(str(widget.render()) for widget in screen.query(selector))


async def test_keys_are_handled_while_the_explanation_is_worked_out(make_app, monkeypatch):
    gate, calls = held_back(monkeypatch)
    app = make_app(lang="ja")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_reveal(pilot)
        assert calls == [False]                      # asked for, and still being worked out
        await pilot.press("2")                       # the UI thread is free: the key switches the tab
        assert screen.query_one(TabbedContent).active == "tab-jacobian"
        assert "解説を計算しています" in text(screen, ".explain-note") and screen.query(".explain-spinner")
        assert not screen.explained.is_set()
        gate.set()
        await screen.explained.wait()
        await pilot.pause()
        assert not screen.query(".explain-spinner") and screen.query("#jacobian-body")
        assert screen.query_one(TabbedContent).active == "tab-jacobian"   # the tab the learner chose stays
        await app.workers.wait_for_complete()


async def test_leaving_drops_the_explanation_still_being_worked_out(make_app, monkeypatch):
    gate, calls = held_back(monkeypatch)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_reveal(pilot)
        workers = list(screen.workers)
        token = tokens[-1]
        assert token is not None and not token.cancelled
        await pilot.press("escape")
        assert not isinstance(app.screen, RevealScreen)
        assert workers and all(worker.is_cancelled for worker in workers)
        assert token.cancelled        # the child is killed (see test_sandbox_zygote), not left to its deadline
        gate.set()                                   # the child's answer arrives after the learner left
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not screen.explained.is_set() and calls == [False]   # dropped: no symbolic job follows
