"""Snapshots of every tab of the explanation (reveal) view at 80x24 and 120x40, in English and Japanese.

The step is the article's `out = (inp + 1).pow(2); out.backward(torch.tensor([1., 1.]))`, answered
wrongly, then the answer is shown (a wrong answer alone does not reveal it); each snapshot waits for the symbolic forms. Update after an intended change of the look:
`pytest tests/app/test_app_reveal_snapshots.py --snapshot-update`, then look at the SVGs.
"""
import pytest

SIZES = [(80, 24), (120, 40)]
LANGS = ["en", "ja"]
TABS = {"answer": "1", "jacobian": "2", "vjp": "3", "chain": "4", "graph": "5", "backprop": "6"}


def open_tab(key):
    async def run(pilot):
        await pilot.press("enter")
        await pilot.app.screen.show_step(1)
        await pilot.press("1", "tab", "1", "enter")
        await pilot.press("escape", "s", "e")  # leave the editor, show the answer, then the explanation
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press(key)
        await pilot.pause()

    return run


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("tab", list(TABS))
def test_reveal_tab(tab, lang, size, make_app, snap_compare):
    assert snap_compare(make_app(lang=lang), terminal_size=size, run_before=open_tab(TABS[tab]))
