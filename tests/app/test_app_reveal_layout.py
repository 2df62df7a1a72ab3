"""The reveal screen follows the terminal: a resize lays the panels out again for the new width (the
tab, the stepper's position and the panels stay), and the backprop stepper names the backward call a
node belongs to when the program makes several."""
from types import SimpleNamespace

from rich.console import Console
from textual.widgets import TabbedContent
from textual.worker import WorkerCancelled

from tutor.screens.reveal import RevealScreen

WIDE = """import torch
x = torch.tensor([[0.123456, -1.5, 2.25, 3.5], [1.0, 2.0, -0.5, 0.75]], requires_grad=True)
W = torch.tensor([[1.5, -2.25, 0.125], [0.5, 1.75, -3.0], [2.5, 0.25, 1.0], [-1.25, 3.5, 0.5]])
y = torch.tanh(x @ W)
y.backward(torch.tensor([[1.0, 0.5, -2.0], [0.25, 1.5, 1.0]]))
"""

TWO_CALLS = """import torch
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = (x ** 2).sum()
y.backward()
z = (3 * x).mean()
z.backward()
"""


def lines(screen, selector) -> list[str]:
    """A panel's content as rich draws it in the width the screen gives it."""
    console = Console(width=screen.app.size.width - 5, record=True, file=open("/dev/null", "w"))
    console.print(screen.query_one(selector).content)
    return console.export_text().splitlines()


async def open_reveal(pilot, source: str) -> RevealScreen:
    step = SimpleNamespace(expression="x.grad", explanation=None)
    pilot.app.open_explanation(None, step, SimpleNamespace(kind="text", value="(see the panels)"), source)
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, RevealScreen)
    await settle(pilot, screen)
    return screen


async def settle(pilot, screen: RevealScreen) -> None:
    """Until the panels are laid out for the terminal's width and sympy's forms are in."""
    for _ in range(300):
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:  # a newer width replaced that job (exclusive workers)
            pass
        await pilot.pause(0.05)
        if screen.width == screen._panel_width() and screen.symbolic is not None and not pilot.app.workers:
            return
    raise AssertionError(f"panels laid out for {screen.width}, screen has {screen._panel_width()}")


async def test_a_resize_lays_the_vjp_out_again(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_reveal(pilot, WIDE)
        await pilot.press("3")
        wide = lines(screen, "#vjp-body")
        assert "·  J =" in wide and max(map(len, wide)) > 80  # the whole 6x8 Jacobian, side by side

        await pilot.resize_terminal(80, 24)
        await settle(pilot, screen)
        narrow = lines(screen, "#vjp-body")
        assert screen.width == 75 and max(map(len, narrow)) <= 75
        assert "· J (the Jacobian above) =" in narrow and "·  J =" not in narrow  # stacked, J not repeated
        assert screen.query_one(TabbedContent).active == "tab-vjp"
        assert "∂" in "".join(lines(screen, "#chain-body"))  # sympy's forms laid out again too

        await pilot.resize_terminal(120, 40)
        await settle(pilot, screen)
        assert lines(screen, "#vjp-body") == wide
        assert screen.query_one(TabbedContent).active == "tab-vjp"


async def test_the_stepper_keeps_its_node_across_a_resize(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_reveal(pilot, WIDE)
        await pilot.press("6", "right", "right")
        stepper = screen.query_one("#stepper")
        await pilot.resize_terminal(80, 24)
        await settle(pilot, screen)
        assert stepper.position == 2 and screen.query_one(TabbedContent).active == "tab-backprop"
        assert max(map(len, lines(screen, "#trace-step"))) <= 75


async def test_the_stepper_names_the_backward_call(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_reveal(pilot, TWO_CALLS)
        await pilot.press("6")
        stepper = screen.query_one("#stepper")
        position = lambda: str(screen.query_one("#trace-position").content)  # noqa: E731
        assert position().startswith("Backward call 1 (line 4) · node 1 of 3")
        seen = {position().split("   ")[0]}
        for _ in range(len(stepper.steps)):
            await pilot.press("right")
            seen.add(position().split("   ")[0])
        assert "Backward call 2 (line 6) · node 1 of 3" in seen and "Backward call 2 (line 6) · node 3 of 3" in seen
        assert "Backward call 1 (line 4) · node 3 of 3" in seen


async def test_the_stepper_names_the_backward_call_in_japanese(make_app):
    app = make_app(lang="ja")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_reveal(pilot, TWO_CALLS)
        await pilot.press("6", "right", "right", "right")
        assert str(screen.query_one("#trace-position").content).startswith("backward 呼び出し 2（6 行目）· ノード 1 / 3")


async def test_one_backward_call_needs_no_call_label(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_reveal(pilot, WIDE)
        await pilot.press("6")
        assert str(screen.query_one("#trace-position").content).startswith("Node 1 of ")


async def test_a_drag_of_resizes_settles_on_the_last_width(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_reveal(pilot, WIDE)
        await pilot.press("2")
        for width in (110, 95, 81, 100, 90):
            await pilot.resize_terminal(width, 30)
            await pilot.pause()
        await settle(pilot, screen)
        assert screen.width == 85 and screen.query_one(TabbedContent).active == "tab-jacobian"
        assert max(map(len, lines(screen, "#jacobian-body"))) <= 85
