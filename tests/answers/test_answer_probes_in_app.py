"""The answer probes where a learner types them: pasted into the lesson's whole-answer field as a terminal sends a
paste (one `events.Paste`, line breaks and escape sequences included), typed key by key, and in the quiz. What the
field then holds is graded as the probe says; Enter on real steps shows the verdict or the refusal, EN and JA."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from answer_probes import FIXTURES, MASK, MEAN, NONE, PAIR, PROBES, TALL, TINY
from test_answer_probes_graded import graded
from textual import events
from textual.widgets import Input

from tutor.answer_input import AnswerFormatError
from tutor.screens.lesson import LessonScreen
from tutor.screens.quiz import QuizScreen


@pytest.fixture
def make_app(data_dir):
    """The app on the bundled course and the probes' fixture lesson, opened at `target`."""
    from tutor.app import TutorApp

    def make(target: str | None = None, lang: str = "en", **options):
        options.setdefault("symbolic_seconds", 60.0)
        at = tuple(target.split(":")) if target is not None else None
        return TutorApp(lang=lang, extra_dirs=[FIXTURES], data_dir=data_dir, open_at=at, **options)

    return make


async def paste(pilot, text: str) -> Input:
    whole = pilot.app.screen.query_one("#whole", Input)
    whole.focus()
    whole.value = ""
    whole.post_message(events.Paste(text))
    await pilot.pause()
    return whole


def feedback(pilot) -> str:
    return str(pilot.app.screen.query_one("#feedback").render())


async def test_every_probe_pasted_into_the_field_is_read_as_graded(make_app):
    """The field holds each paste whole, on one line, without escape sequences, and what it holds gets the probe's
    verdict (a 2-D printout kept to its first line would be an unclosed bracket)."""
    app = make_app(MEAN)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, LessonScreen)
        for probe in PROBES:
            whole = await paste(pilot, probe.typed)
            held = whole.value
            assert "\n" not in held and "\x1b" not in held and "\r" not in held, probe
            got, _ = graded(probe.target, held)
            assert got == probe.verdict, (probe, held[:200])


async def question_shown(pilot) -> QuizScreen:
    """The quiz screen once its first question is on show (it is made in a thread)."""
    for _ in range(100):
        await pilot.pause()
        screen = pilot.app.screen
        if isinstance(screen, QuizScreen) and screen.question is not None and not screen.drawing \
                and screen.query("#step-text"):
            return screen
        await pilot.app.workers.wait_for_complete()
    raise AssertionError("no quiz question on screen")


def _answered(pilot) -> str | None:
    return pilot.app.screen.view.state.verdict


# per step: a refusal typed key by key, a wrong answer typed, then PyTorch's printout pasted, which is right
IN_THE_FIELD = [
    (MEAN, "[[7/6, 4/3], [3/2, 5/3]]", "answer_wrong_shape", "[[1, 2, 3], [4, 5, 6]]",
     str(torch.nn.Parameter(torch.tensor([[7 / 6, 4 / 3, 3 / 2], [5 / 3, 11 / 6, 2]])))),
    (PAIR, "[4, 2", "answer_unclosed", "-4 -2", "tensor([4.0000e+00,\n        2.0000e+00])"),
    (TALL, "[[5, 7, 9], [5, 7, 9]]", "answer_transposed", "None", "5 5\n7 7\n9 9"),
    (NONE, "[[0, 0]", "answer_unclosed", "tensor([[0., 0.]])", "\x1b[1mNone\x1b[0m\r\n"),
    (TINY, "[1e-5, 1e-5, 0]", "answer_wrong_shape", "[0, 0]", "tensor([1.0000e-05, 1.0000e-05])"),
    (MASK, "[0, 1]", "answer_not_bools", "[True, False]", "tensor([False,  True])"),
]


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize(("target", "slip", "key", "wrong", "printout"), IN_THE_FIELD,
                         ids=[row[0].split(":")[1] for row in IN_THE_FIELD])
async def test_typed_and_pasted_answers_on_a_real_step(make_app, lang, target, slip, key, wrong, printout):
    from tutor.i18n import t

    app = make_app(target, lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        whole = pilot.app.screen.query_one("#whole", Input)
        whole.focus()
        await pilot.press(*slip, "enter")
        await pilot.pause()
        _, refusal = graded(target, slip)
        assert refusal is not None and refusal.key == key
        assert refusal.message(lang) in feedback(pilot).replace("\n", "") and _answered(pilot) is None

        whole.value = ""
        await pilot.press(*wrong, "enter")
        await pilot.pause()
        assert _answered(pilot) == "wrong" and t("wrong", lang) in feedback(pilot)

        await paste(pilot, printout)
        await pilot.press("enter")
        await pilot.pause()
        assert _answered(pilot) == "correct" and t("correct", lang) in feedback(pilot)


async def test_a_pasted_printout_and_a_slip_in_the_quiz(make_app):
    """The quiz's field is the lesson's: a refusal names the fix (JA), and the question's answer pasted as PyTorch
    prints it, over several lines with `grad_fn=`, is right."""
    from tutor.grading import read_prediction
    from tutor.i18n import t

    app = make_app(lang="ja", start="quiz", quiz_seed=3, quiz_count=2, include_bundled=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await question_shown(pilot)
        assert isinstance(screen, QuizScreen)
        answer = screen.question.answer
        assert answer.kind in ("tensor", "number")
        whole = await paste(pilot, "[[1, 2],\n [3, 4]")
        await pilot.press("enter")
        await pilot.pause()
        with pytest.raises(AnswerFormatError) as refusal:
            read_prediction(answer, whole.value)
        assert refusal.value.key == "answer_unclosed"
        assert refusal.value.message("ja") in feedback(pilot).replace("\n", "")
        value = torch.tensor(np.asarray(answer.value, dtype=np.float32), requires_grad=True) * 1
        whole = await paste(pilot, str(value))
        assert "grad_fn=" in whole.value and "],\n" in str(value)  # pasted over several lines
        await pilot.press("enter")
        await pilot.pause()
        assert screen.view.state.verdict == "correct" and t("correct", "ja") in feedback(pilot)



async def test_long_numbers_in_the_grid_are_never_shown_as_other_numbers(make_app):
    """A cell shows the end of what is typed behind an ellipsis (`6.6667e-01` read as `6667e-01`), and a correct
    value too long for its cell loses its arrow and digits, never its end (`→ -1.2345e-05` read as `→ -1.2345`)."""
    from tutor.widgets.answer_grid import AnswerGrid

    app = make_app("probe-extremes:long")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        grid = app.screen.query_one("#grid", AnswerGrid)
        grid.focus()
        await pilot.press(*"6.6667e-01", "tab", *"-20666.6667")
        drawn = str(grid.render())
        assert "…667e-01" in drawn and "…66.6667" in drawn and " 6667e-01" not in drawn
        await pilot.press("enter", "escape", "s")
        await pilot.pause()
        assert app.screen.view.state.verdict == "revealed"
        values = str(grid.render()).split("\n")[1]  # under the wrong first cell (the second is right)
        assert values.split() == ["-1.23e-05"], values
