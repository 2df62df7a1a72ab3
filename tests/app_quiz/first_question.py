"""Waiting for a quiz's first question, which the quiz screen computes once the snippet worker has started."""
from tutor.screens.quiz import QuizScreen


async def question_shown(pilot) -> None:
    """Until the quiz screen shows its first question: the wait is for the screen's own work (a Textual worker
    awaiting the snippet worker), never for a time."""
    app = pilot.app
    for _ in range(100):
        await pilot.pause()
        if isinstance(app.screen, QuizScreen) and app.screen.question is not None and app.screen.query("#step-text"):
            return
        await app.workers.wait_for_complete()
    raise AssertionError(f"no quiz question on screen ({type(app.screen).__name__})")
