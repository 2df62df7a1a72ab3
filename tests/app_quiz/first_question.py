"""Waiting for a quiz's question, which the quiz screen makes in a thread (it waits for the snippet worker)."""
from tutor.screens.quiz import QuizScreen


async def question_shown(pilot) -> None:
    """Until the quiz screen shows the question it asked for (the first, or the next after `n`): the wait is for the
    screen's own work (a Textual worker awaiting the question's thread), never for a time."""
    app = pilot.app
    for _ in range(100):
        await pilot.pause()
        if isinstance(app.screen, QuizScreen) and app.screen.question is not None and not app.screen.drawing \
                and app.screen.query("#step-text"):
            return
        await app.workers.wait_for_complete()
    raise AssertionError(f"no quiz question on screen ({type(app.screen).__name__})")
