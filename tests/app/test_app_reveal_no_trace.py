"""A call with no backward sweep to follow node by node — forward mode (jvp), a returned Jacobian (jacrev),
several outputs at once — opens the reveal screen without an error: the Backprop tab says why it is empty
and the keys that step through nodes do nothing."""
from pathlib import Path
from types import SimpleNamespace

import pytest

from tutor.screens.reveal import RevealScreen

FIXTURES = Path(__file__).parent / "fixtures"
PROGRAMS = {
    "jvp": "import torch\nfrom torch.func import jvp\nx = torch.tensor([1., 2.])\n"
           "y, jt = jvp(torch.sin, (x,), (torch.tensor([1., 0.]),))\n",
    "jacrev": "import torch\nfrom torch.func import jacrev\nJ = jacrev(torch.sin)(torch.tensor([1., 2.]))\n",
}


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("name", list(PROGRAMS))
async def test_the_backprop_tab_says_why_it_is_empty(data_dir, name, lang):
    from tutor.app import TutorApp

    app = TutorApp(lang=lang, extra_dirs=[FIXTURES / "course"], data_dir=data_dir, include_bundled=False,
                   symbolic_seconds=60.0)
    async with app.run_test(size=(100, 30)) as pilot:
        step = SimpleNamespace(expression="y", explanation=None)
        app.open_explanation(None, step, SimpleNamespace(kind="text", value="(see the panels)"), PROGRAMS[name])
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RevealScreen)
        await screen.explained.wait()
        await pilot.pause()
        await pilot.press("6")                    # the Backprop tab
        await pilot.press("right", "left")        # nothing to step through: no error
        await pilot.pause()
        shown = " ".join(str(w.render()) for w in screen.query("#trace-step"))
        expected = {"en": "Nothing to follow node by node here", "ja": "ここにはノードごとにたどるものがありません"}[lang]
        assert expected in shown
        await app.workers.wait_for_complete()
