"""`autograd-tutor quiz` at start-up: the first question is drawn from the quiz templates saved beside the
course view's outline, without loading a lesson, and it is the question the loaded course gives."""
from first_question import question_shown

from tutor.app import TutorApp
from tutor.screens.quiz import QuizScreen


def quiz_on_the_course(data_dir):
    """`autograd-tutor quiz --seed 3`: seed 3 draws a lesson's template first (a built-in one would not tell the
    two starts apart)."""
    return TutorApp(lang="en", data_dir=data_dir, start="quiz", quiz_seed=3)


async def first_question(app):
    async with app.run_test(size=(100, 30)) as pilot:
        await question_shown(pilot)
        assert isinstance(app.screen, QuizScreen)
        return app.screen.question, app._course is None


async def test_the_first_question_needs_no_lesson_loaded_and_is_the_course_s(data_dir, monkeypatch):
    monkeypatch.setattr("tutor.app.COURSE_LOAD_SECONDS", 600)  # the lessons load only when something needs them
    loaded, was_unloaded = await first_question(quiz_on_the_course(data_dir))
    assert not was_unloaded and "/" in loaded.template_id  # no outline yet: the course loaded for the quiz
    assert (data_dir / "cache" / "quiz.json").is_file()
    saved, was_unloaded = await first_question(quiz_on_the_course(data_dir))
    assert was_unloaded
    assert (saved.id, saved.step, saved.answer.value.tolist()) == (loaded.id, loaded.step, loaded.answer.value.tolist())
    assert saved.lesson.title == loaded.lesson.title and saved.lesson.source == loaded.lesson.source


async def test_without_a_readable_quiz_part_the_lessons_load(data_dir):
    await first_question(quiz_on_the_course(data_dir))
    (data_dir / "cache" / "quiz.json").write_text("{damaged", encoding="utf-8")
    question, was_unloaded = await first_question(quiz_on_the_course(data_dir))
    assert not was_unloaded and "/" in question.template_id


async def preparing_said(pilot) -> None:
    """Until the quiz screen says it prepares its first question (its notice comes on a timer)."""
    for _ in range(100):
        await pilot.pause(0.01)
        if pilot.app.screen.query("#preparing"):
            return
    raise AssertionError("no preparing notice")


async def test_the_quiz_screen_is_drawn_at_once_and_its_question_follows(make_app, monkeypatch):
    """While the snippet worker starts, the quiz screen says it prepares the first question (in the learner's
    language), only leaving works, and the question comes once the worker has started."""
    import asyncio

    from tutor import worker_start
    from tutor.screens.confirm import ConfirmScreen
    from tutor.screens.course import CourseScreen

    started = asyncio.Event()

    async def held():
        await started.wait()

    monkeypatch.setattr(worker_start, "started", held)
    monkeypatch.setattr("tutor.screens.quiz.PREPARING_DELAY", 0.01)  # the worker is late: the notice at once
    app = make_app(start="quiz", quiz_seed=1, quiz_count=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await preparing_said(pilot)
        screen = app.screen
        assert isinstance(screen, QuizScreen) and screen.question is None
        assert "Preparing the first question" in str(screen.query_one("#preparing").render())
        assert "Step 1 of 2" in str(screen.query_one("#progress").render())
        await pilot.press("enter", "s", "h", "e", "r", "n")  # nothing to answer yet: nothing happens
        await pilot.pause()
        assert app.screen is screen and screen.question is None
        await pilot.press("f2")
        await pilot.pause()
        assert "最初の問題を準備しています" in str(screen.query_one("#preparing").render())
        await pilot.press("f2")
        started.set()
        await question_shown(pilot)
        assert app.screen is screen and not screen.query("#preparing") and screen.query("#snippet")
        await pilot.press("escape", "escape")  # leaving asks first, as ever
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, CourseScreen)


async def test_a_first_question_that_cannot_be_made_says_why_and_returns_to_the_course(make_app, monkeypatch):
    from tutor.quiz import QuizError, QuizSession
    from tutor.screens.course import CourseScreen

    def broken(self):
        raise QuizError("no quiz template can produce a question")

    monkeypatch.setattr(QuizSession, "next_question", broken)
    app = make_app(start="quiz", quiz_seed=1)
    messages = []
    app.notify = lambda message, **options: messages.append(str(message))
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(100):
            await pilot.pause()
            if isinstance(app.screen, CourseScreen):
                break
            await app.workers.wait_for_complete()
        assert isinstance(app.screen, CourseScreen)
    assert any("The quiz cannot start" in message and "no quiz template" in message for message in messages)


async def test_a_question_that_comes_at_once_is_not_preceded_by_a_preparing_notice(make_app, monkeypatch):
    """A quiz opened from the course once the worker is up (here: before the notice's delay runs out) shows its
    question without a "Preparing…" flashed first; whether the worker is up is asked of the worker alone."""
    import asyncio

    from tutor import worker_start

    started = asyncio.Event()

    async def held():
        await started.wait()

    monkeypatch.setattr(worker_start, "started", held)
    monkeypatch.setattr("tutor.screens.quiz.PREPARING_DELAY", 600)
    app = make_app(quiz_seed=1, quiz_count=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f4")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, QuizScreen) and screen.question is None and not screen.query("#preparing")
        started.set()
        await question_shown(pilot)
        assert app.screen is screen and not screen.query("#preparing")


async def test_leaving_a_quiz_before_its_first_question_returns_to_the_course(make_app, monkeypatch):
    import asyncio

    from tutor import worker_start
    from tutor.screens.course import CourseScreen

    async def never():
        await asyncio.Event().wait()

    monkeypatch.setattr(worker_start, "started", never)
    monkeypatch.setattr("tutor.screens.quiz.PREPARING_DELAY", 0.01)
    app = make_app(start="quiz", quiz_seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await preparing_said(pilot)
        await pilot.press("escape", "y")
        await pilot.pause()
        assert isinstance(app.screen, CourseScreen)
