"""Every bundled lesson, walked in the app answering each step once wrongly and once correctly.

Correct answers come from `compute_answer` (what the engine says), typed into the app as a learner
would paste them; the test asserts what the screen then shows and what the store recorded.
"""

import numpy as np
import pytest

from lessons.course import load_course
from tutor.progress.store import ProgressStore
from tutor.screens.lesson import LessonScreen
from tutor.screens.reveal import RevealScreen

BUNDLED = load_course(user_dir="/nonexistent-autograd-tutor-user-dir").lessons


def typed(answer, correct: bool) -> str:
    """The answer as a learner would type it, or a plausible wrong one."""
    if answer.kind == "tensor":
        value = np.array(answer.value, dtype=float)
        if not correct:  # change a finite cell (nan + 1 is still nan), or make an all-nan answer's first cell 0
            finite = np.flatnonzero(np.isfinite(value))
            if finite.size:
                value.flat[finite[0]] += 1
            else:
                value.flat[0] = 0.0
        return repr(value.tolist())  # Python's spelling of nan and inf, as a learner types them (JSON has NaN)
    if answer.kind == "number":
        return repr(answer.value if correct else answer.value + 1)
    if answer.kind == "none":
        return "None" if correct else "0."
    return str(answer.value) if correct else "NotTheAnswer"


async def answer_step(pilot, screen: LessonScreen, correct: bool) -> str:
    answer = screen.answer
    if answer.kind in ("error", "choice", "bool"):
        count = screen.query_one("#choices").option_count
        index = answer.value if answer.kind != "bool" else (0 if answer.value else 1)
        choices = screen.query_one("#choices")
        choices.focus()
        choices.highlighted = choices.position_of(index if correct else (index + 1) % count)
    else:
        whole = screen.query_one("#whole")
        whole.focus()
        whole.value = typed(answer, correct)
    await pilot.press("enter")
    await pilot.pause()
    return str(screen.query_one("#feedback").render())


async def check_reveal(pilot, where: str) -> None:
    """Once the step is over the explanation opens: Jacobian and VJP panels, or why there are none."""
    await pilot.press("e")
    reveal = pilot.app.screen
    assert isinstance(reveal, RevealScreen), where
    await reveal.explained.wait()  # worked out in a worker thread
    await pilot.pause()
    if reveal.explanation is not None:
        assert reveal.query("#jacobian-body") and reveal.query("#vjp-body") and reveal.query("#stepper"), where
    else:
        assert reveal.problem and reveal.query(".problem"), where
    await pilot.press("escape")


@pytest.mark.parametrize("lesson", BUNDLED, ids=[lesson.id for lesson in BUNDLED])
async def test_walk_lesson_wrongly_then_correctly(lesson, data_dir, monkeypatch):
    from tutor.app import TutorApp
    from tutor.screens import reveal

    monkeypatch.setattr(reveal, "SYMBOLIC_SECONDS", 0.0)  # the symbolic worker has its own test; keep this walk fast

    app = TutorApp(lang="en", data_dir=data_dir)
    graded = []
    async with app.run_test(size=(100, 30)) as pilot:
        app.open_lesson(lesson.id)
        await pilot.pause()
        screen = app.screen
        for index, step in enumerate(lesson.steps):
            await screen.show_step(index)
            if step.kind == "read":
                continue
            where = f"{lesson.id}/{step.id}"
            for correct in (False, True):  # a wrong answer first, then the right one on the same screen
                feedback = await answer_step(pilot, screen, correct)
                assert ("Correct!" in feedback) == correct, f"{where}: {feedback}"
                graded.append((step.id, "correct" if correct else "wrong"))
                grid = screen.query("#grid")
                if grid:  # the typed answer is shown in the cells, the wrong one marked
                    assert grid.first().marks is not None and all(map(all, grid.first().marks)) == correct, where
                if not correct:  # a wrong answer hides the values; the explanation waits
                    assert "The answer is" not in feedback and "Try again" in feedback, where
                elif screen.answer.kind not in ("error", "choice"):
                    await check_reveal(pilot, where)
    with ProgressStore(data_dir=data_dir) as store:
        assert [(a.step_id, str(a.outcome)) for a in store.attempts(lesson.id)] == graded
        assert str(store.lesson_progress(lesson.id, [s for s, _ in graded]).status) == "done"
