"""Snapshots of the main views at 80x24 and 120x40, in English and Japanese, on the fixture lesson.

Update after an intended change of the look: `pytest tests/app/test_app_snapshots.py --snapshot-update`,
then review the SVGs in tests/app/__snapshots__/ (a failing run writes a side-by-side report).
"""
import pytest

SIZES = [(80, 24), (120, 40)]
LANGS = ["en", "ja"]


async def open_predict(pilot):
    await pilot.press("enter")
    await pilot.app.screen.show_step(2)  # the 2x2 x.grad of a sum of squares
    await pilot.pause()


async def answer_wrongly(pilot):
    await open_predict(pilot)
    await pilot.press("2", "tab", "4", "tab", "5", "tab", "8", "enter")
    screen = pilot.app.screen
    for _ in range(100):  # the step's mark turns red when the screen has handled StepView.Answered, a message later
        if screen.step.id in screen.states and screen.states[screen.step.id].outcome is not None:
            break
        await pilot.pause()
    await pilot.pause()


async def open_reveal(pilot):
    await answer_wrongly(pilot)
    await pilot.press("escape", "s", "e")  # show the answer, then the explanation
    await pilot.app.workers.wait_for_complete()
    await pilot.press("2")  # the Jacobian tab, with its symbolic form
    await pilot.pause()


async def stay(pilot):
    await pilot.pause()


VIEWS = {"course": stay, "predict": open_predict, "wrong": answer_wrongly, "reveal": open_reveal}


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("view", list(VIEWS))
def test_snapshot(view, lang, size, make_app, snap_compare):
    assert snap_compare(make_app(lang=lang), terminal_size=size, run_before=VIEWS[view])
