"""Dual numbers in the app: a step whose program reads a tangent with `fwAD.unpack_dual` opens the reveal
screen with forward mode's own tabs — the product tab says J·t (not VJP), and the stepper goes forward op by
op, each op's value, tangents and finite-difference check, in English and Japanese."""
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.console import Console
from textual.widgets import TabbedContent

from tutor.screens.reveal import RevealScreen

FIXTURES = Path(__file__).parent / "fixtures"
DUAL = """import torch
import torch.autograd.forward_ad as fwAD
x0 = torch.tensor([1.0, 2.0, 3.0])
with fwAD.dual_level():
    x = fwAD.make_dual(x0, torch.tensor([1.0, 0.5, -1.0]))
    y = torch.sin(x) * x
    jvp = fwAD.unpack_dual(y).tangent
"""
BACKWARD = "import torch\nx = torch.tensor([1., 2.], requires_grad=True)\n(x * x).sum().backward()\n"
WORDS = {
    "en": {"vjp": "J·t", "backprop": "Forward", "position": "Op 1 of 2", "first": "op 1 of 2: sin",
           "second": "op 2 of 2: mul → y", "check": "equals the finite difference along t"},
    "ja": {"vjp": "J·t", "backprop": "順モード", "position": "演算 1 / 2", "first": "演算 1 / 2: sin",
           "second": "演算 2 / 2: mul → y", "check": "t 方向の有限差分と一致します"},
}


async def _reveal(app, pilot, source):
    step = SimpleNamespace(expression="jvp", explanation=None)
    app.open_explanation(None, step, SimpleNamespace(kind="text", value="(see the panels)"), source)
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, RevealScreen)
    await screen.explained.wait()
    await pilot.pause()
    return screen


def _label(screen, tab: str) -> str:
    return str(screen.query_one(TabbedContent).get_tab(f"tab-{tab}").label)


def _shown(screen, selector: str) -> str:
    """A Static's content as the plain text rich draws for it, wherever panels wrap it."""
    console = Console(width=120, record=True, file=open("/dev/null", "w"))
    console.print(screen.query_one(selector).content)
    return " ".join(console.export_text().replace("│", " ").split())


@pytest.mark.parametrize("lang", ["en", "ja"])
async def test_a_dual_number_step_shows_j_t_and_steps_forward(data_dir, lang):
    from tutor.app import TutorApp

    words = WORDS[lang]
    app = TutorApp(lang=lang, extra_dirs=[FIXTURES / "course"], data_dir=data_dir, include_bundled=False,
                   symbolic_seconds=60.0)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _reveal(app, pilot, DUAL)
        assert _label(screen, "vjp") == words["vjp"] and _label(screen, "backprop") == words["backprop"]
        await pilot.press("3")
        await pilot.pause()
        assert "unpack_dual(y)" in _shown(screen, "#vjp-body")
        await pilot.press("6")
        await pilot.pause()
        assert words["position"] in _shown(screen, "#trace-position")
        step = _shown(screen, "#trace-step")
        assert words["first"] in step and words["check"] in step
        await pilot.press("right")
        await pilot.pause()
        assert words["second"] in _shown(screen, "#trace-step")
        await app.workers.wait_for_complete()


async def test_a_backward_step_keeps_its_vjp_and_backprop_tabs(data_dir):
    from tutor.app import TutorApp

    app = TutorApp(lang="en", extra_dirs=[FIXTURES / "course"], data_dir=data_dir, include_bundled=False,
                   symbolic_seconds=60.0)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _reveal(app, pilot, BACKWARD)
        assert _label(screen, "vjp") == "VJP" and _label(screen, "backprop") == "Backprop"
        await app.workers.wait_for_complete()
