"""The explanation panels after an attempt: answer with finite differences, Jacobian (numeric, then
symbolic from the worker), VJP, chain rule, graph, and the backprop stepper."""
from rich.console import Console
from textual.widgets import TabbedContent

from tutor.screens.lesson import LessonScreen
from tutor.screens.reveal import RevealScreen


def shown(app, selector) -> str:
    """A Static's content as the plain text rich draws for it."""
    console = Console(width=120, record=True, file=open("/dev/null", "w"))
    console.print(app.screen.query_one(selector).content)
    return console.export_text()


async def reveal_after_wrong_answer(pilot) -> RevealScreen:
    await pilot.press("enter")
    screen = pilot.app.screen
    await screen.show_step(1)  # out = (inp + 1).pow(2); out.backward([1, 1]) -> inp.grad = [4, 2]
    await pilot.press("1", "tab", "1", "enter", "escape", "e")
    assert not isinstance(pilot.app.screen, RevealScreen)  # not while the learner may still retry
    await pilot.press("s", "e")
    await pilot.pause()
    assert isinstance(pilot.app.screen, RevealScreen)
    await pilot.app.screen.explained.wait()  # worked out in a worker thread
    await pilot.pause()
    return pilot.app.screen


async def test_panels_show_the_engine_explanation(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await reveal_after_wrong_answer(pilot)
        assert "inp.grad = tensor([4., 2.])" in shown(app, "#answer-value")
        assert "central differences" in shown(app, "#fd-check") and "agrees" in shown(app, "#fd-check")
        assert "(1, 1) J = (4, 2)." in screen.query_one("#answer-explanation").source
        jacobian = shown(app, "#jacobian-body")
        assert "2x2" in jacobian and "diagonal" in jacobian
        assert "vᵀJ equals inp.grad" in shown(app, "#vjp-body")
        assert "PowBackward0" in shown(app, "#graph-body") and "AccumulateGrad" in shown(app, "#graph-body")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not screen.query("#symbolic-spinner")
        assert "symbolic" in shown(app, "#jacobian-body")
        assert "2(inp₁ + 1)" in shown(app, "#jacobian-body")  # the article's diag(2(x₁+1), 2(x₂+1))
        await pilot.press("6")
        assert screen.query_one(TabbedContent).active == "tab-backprop"
        stepper = screen.query_one("#stepper")
        stepper.focus()
        first = shown(app, "#trace-step")
        await pilot.press("right")
        assert stepper.position == 1 and shown(app, "#trace-step") != first
        assert "Node 2 of" in shown(app, "#trace-position")
        await pilot.press("escape")
        assert isinstance(app.screen, LessonScreen)


async def test_reveal_in_japanese_and_without_backward(make_app):
    app = make_app(lang="ja")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await reveal_after_wrong_answer(pilot)
        tabs = [str(tab.label) for tab in screen.query("Tab")]
        assert tabs[:3] == ["答え", "ヤコビ行列", "VJP"]
        await pilot.press("escape")
        lesson = app.screen
        await lesson.show_step(3)  # x.requires_grad: the program makes a backward call, the question none
        await pilot.press("down", "enter", "e")  # the first option (nothing is highlighted before a move); right
        await pilot.pause()
        assert isinstance(app.screen, RevealScreen)
        assert "x.requires_grad = True" in shown(app, "#answer-value")
