"""Every hostile lesson driven through the app with Textual's pilot — the course list, the Reset dialog and its
notification, every step, hints, the shown answer, every tab of the explanation, in English and Japanese —
and after each move the whole screen rendered as the bytes a terminal would get: no escape sequence, control
character, hyperlink or payload from the content, and the content's markup shown literally, not obeyed."""
import pytest
from boundary_checks import assert_inert, visible
from textual.app import App

from tutor.app import TutorApp
from tutor.screens.course import CourseScreen
from tutor.screens.lesson import LessonScreen
from tutor.screens.reveal import TABS, RevealScreen

LESSONS = ["hostile-title", "hostile-read-text", "hostile-printed", "hostile-expression", "hostile-explanation",
           "hostile-error-choice"]


def terminal_output(app) -> str:
    """The whole screen (and the screens under a dialog) as a terminal would receive it, the way Textual's
    own screenshot renders it: through every line filter the app applies."""
    from rich.console import Console

    console = Console(width=app.size.width, height=app.size.height, file=None, force_terminal=True,
                      color_system="truecolor", legacy_windows=False, safe_box=False)
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    return update.render_segments(console)


class Screens:
    """What the test saw, move by move."""

    def __init__(self, app) -> None:
        self.app = app
        self.shown: list[str] = []

    async def look(self, pilot, where: str) -> str:
        await pilot.pause()
        output = terminal_output(self.app)
        assert_inert(output, where)
        self.shown.append(visible(output))
        return self.shown[-1]

    def saw(self, fragment: str) -> bool:
        return any(fragment in screen for screen in self.shown)


@pytest.mark.parametrize("lang, wall", [("en", False), ("ja", True)])
async def test_every_lesson_step_and_panel_is_inert(hostile_app, lang, wall, cwd, monkeypatch):
    """Without the last wall too: each channel cleans its own text (and shows the attack visibly)."""
    if not wall:
        monkeypatch.setattr(TutorApp, "get_line_filters", App.get_line_filters)
    app = hostile_app(lang)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screens = Screens(app)
        assert isinstance(app.screen, CourseScreen)
        await screens.look(pilot, "course")
        assert not app.outline.broken, [str(error) for error in app.outline.broken]
        assert sorted(lesson.id for lesson in app.course.lessons) == sorted(LESSONS)
        for lesson_id in LESSONS:
            app.open_lesson(lesson_id, app.lesson(lesson_id).steps[0].id)
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, LessonScreen)
            for index, step in enumerate(screen.lesson.steps):
                await screen.show_step(index)
                where = f"{lesson_id}/{step.id}"
                await screens.look(pilot, where)
                if screen.view.graded:
                    screen.view.focus()
                    await pilot.press("h")
                    await screens.look(pilot, f"{where} hint")
                    await pilot.press("s")
                    await screens.look(pilot, f"{where} answer shown")
                    if step.kind == "predict":
                        await pilot.press("e")
                        await pilot.pause()
                        assert isinstance(app.screen, RevealScreen), where
                        await app.screen.explained.wait()  # worked out in a worker thread
                        await pilot.pause()
                        for number, tab in enumerate(TABS, start=1):
                            await pilot.press(str(number))
                            await screens.look(pilot, f"{where} {tab}")
                        await pilot.press("escape")
                        await pilot.pause()
            screen.dismiss()
            await pilot.pause()
        assert app.is_running
    assert list(cwd.iterdir()) == []
    # the attacks were shown, visibly, not dropped: the test looked at the content
    for fragment in ["␛]0;PWNED-TITLE␇", "␛]52;c;UFdORUQtQ0xJUA==␇", "␛]0;PWNED-PRINT␇", "␛]0;PWNED-EXPR␇",
                     "␛]0;PWNED-HINT␇", "[@click=app.quit]", "␛]0;PWNED-ERROR␇"]:
        assert screens.saw(fragment), fragment
    if lang == "en":
        assert screens.saw("(https://evil.example/PWNED-LINK)")  # a Markdown link: its address in plain sight
        assert screens.saw("␛]0;PWNED-REPR␇") or screens.saw("PWNED-BACKWARD-SOURCE")  # the explanation's text


async def test_the_reset_dialog_shows_the_title_as_text_and_its_action_does_nothing(hostile_app, cwd):
    app = hostile_app()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screens = Screens(app)
        await pilot.pause()
        lessons = app.screen.query_one("#lessons")
        lessons.highlighted = lessons.get_option_index("hostile-title")
        await pilot.press("r")
        await pilot.pause()
        shown = await screens.look(pilot, "reset dialog")
        assert "[@click=app.screenshot('pwned.svg')]Reset me[/]" in shown
        await pilot.click("#question")  # where the title's action would have been
        await pilot.click("#question", offset=(20, 0))
        await pilot.pause()
        assert app.is_running and list(cwd.iterdir()) == []
        await pilot.press("y")
        shown = await screens.look(pilot, "reset notification")
        assert "Progress in “[@click=app.screenshot('pwned.svg')]Reset" in shown
        for toast in app.screen.query("Toast"):
            await pilot.click(toast)
        await pilot.pause()
        assert app.is_running and list(cwd.iterdir()) == []


async def test_notifications_are_plain_text_whoever_sends_them(hostile_app):
    app = hostile_app()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        app.screen.notify("[@click=app.quit]x[/] [/] \x1b]0;PWNED-NOTE\x07", title="[b]\x1b]2;PWNED-NOTE\x07")
        app.notify("[link=https://evil.example]y[/link]", markup=True)  # asking for markup does not get it
        shown = await Screens(app).look(pilot, "notifications")
        assert "[@click=app.quit]x[/] [/] ␛]0;PWNED-NOTE␇" in shown
        assert "[link=https://evil.example]y[/link]" in shown


async def test_a_quiz_from_a_hostile_template_is_inert(hostile_app, monkeypatch):
    """The quiz asks only the hostile lesson's template (the built-in ones set aside): its text, what its
    program prints, the shown answer and the summary."""
    import tutor.quiz

    monkeypatch.setattr(tutor.quiz, "builtin_templates", lambda: [])
    app = hostile_app(start="quiz", quiz_seed=1, quiz_count=2)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screens = Screens(app)
        for _ in range(100):
            await pilot.pause(0.05)
            if type(app.screen).__name__ == "QuizScreen" and app.screen.question is not None:
                break
            await app.workers.wait_for_complete()
        for number in range(2):
            assert app.screen.question.id.startswith("hostile-printed/printed-quiz"), app.screen.question.id
            await screens.look(pilot, f"quiz question {number}")
            app.screen.view.focus()
            await pilot.press("s")
            await screens.look(pilot, f"quiz answer {number}")
            await pilot.press("enter")
        await screens.look(pilot, "quiz summary")
        assert app.is_running
    assert screens.saw("␛]0;PWNED-QUIZ␇") and screens.saw("␛]0;PWNED-QUIZ-PRINT␇")
